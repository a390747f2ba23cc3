// Package check is the conformance check of the App Context MCP Profile
// 0.1 (kontext apps check): a table of rules and a runner that holds a
// live application to them, through the same MCP client and manifest
// checks the broker uses. The table is also the source of the rules
// section of docs/appcontext-profile.md, so the two cannot drift.
package check

// Rule is one conformance rule of the profile.
type Rule struct {
	// ID names the rule on the command line and in the profile.
	ID string
	// Title is what a passing rule prints.
	Title string
	// Checks says what the runner does and expects, Why what breaks when
	// an application does not conform; both are the profile's text.
	Checks, Why string
	// Needs are the rules that must pass before this one can run: a rule
	// whose prerequisite failed is reported as failed, "skipped: <rule>
	// failed", never as passed.
	Needs []string

	run func(*run) error
}

// The rules' ids, for Needs and the tests.
const (
	ManifestModes         = "manifest-modes"
	ManifestSchema        = "manifest-schema"
	ManifestLocation      = "manifest-location"
	ManifestLive          = "manifest-live"
	EndpointLoopback      = "endpoint-loopback"
	EndpointToken         = "endpoint-token"
	EndpointOrigin        = "endpoint-origin"
	EndpointHost          = "endpoint-host"
	EndpointHandshake     = "endpoint-handshake"
	InstanceEcho          = "instance-echo"
	ActionDialect         = "action-dialect"
	ActionDestructiveness = "action-destructiveness"
	ActionConfirmation    = "action-confirmation"
	StateReadable         = "state-readable"
	StateSubscribable     = "state-subscribable"
	EventsSubscribed      = "events-subscribed"
)

// Rules returns the rules in the order they run (the broker's order for
// the ones it shares: file, schema, endpoint, handshake, echo).
func Rules() []Rule {
	return []Rule{
		{
			ID:     ManifestModes,
			Title:  "the manifest and its folder are private to the user",
			Checks: "The instances folder has mode 0700 and the manifest 0600 (no permission for group or others), both belong to the user running the check, and the manifest is a regular file, not a symbolic link.",
			Why:    "The manifest holds the launch's bearer token: whoever can read it can drive the application, whoever can write it can point a broker at another endpoint. The broker reads no further than a manifest that fails this rule.",
			run:    (*run).manifestModes,
		},
		{
			ID:     ManifestSchema,
			Title:  "the manifest matches the profile's JSON Schema",
			Checks: "The manifest is valid against `schema/appcontext/manifest.json`: profile `appcontext-mcp/0.1`, every required key, no unknown key.",
			Why:    "A broker trusts no field it has not validated, and refuses a profile version it does not speak rather than guess at it.",
			Needs:  []string{ManifestModes},
			run:    (*run).manifestSchema,
		},
		{
			ID:     ManifestLocation,
			Title:  "the manifest is <runtime>/appcontext/instances/<instanceId>.json",
			Checks: "The manifest's folder is the instances folder of the runtime directory the check resolves as every broker does (`APPCONTEXT_RUNTIME_DIR`, else `XDG_RUNTIME_DIR`, else the user cache directory, else a per-user folder under the temporary directory), and its name is its `instanceId` with `.json`.",
			Why:    "Brokers look nowhere else, and a file named after another instance could pose as that launch.",
			Needs:  []string{ManifestSchema},
			run:    (*run).manifestLocation,
		},
		{
			ID:     ManifestLive,
			Title:  "the process that wrote the manifest is running",
			Checks: "The manifest's `pid` is a running process whose start time is the manifest's `processStart`.",
			Why:    "A manifest left by a crashed launch, or a pid the system gave to another process, must not be mistaken for the application: brokers drop such manifests as stale.",
			Needs:  []string{ManifestSchema},
			run:    (*run).manifestLive,
		},
		{
			ID:     EndpointLoopback,
			Title:  "the endpoint is streamable HTTP on a loopback IP literal",
			Checks: "The manifest advertises an `mcp` endpoint: transport `streamable-http`, an `http://` URL whose host is a loopback IP literal (127.0.0.0/8 or `[::1]`, never a host name) with a port, and bearer authentication. A manifest that names only the legacy WebSocket channel fails. Nothing is sent to an endpoint that fails this rule.",
			Why:    "A host name can resolve off the machine or be rebound, and the token must reach only this machine. The WebSocket channel is a compatibility path inside the broker for old applications, not part of the profile.",
			Needs:  []string{ManifestSchema},
			run:    (*run).endpointLoopback,
		},
		{
			ID:     EndpointToken,
			Title:  "the endpoint refuses requests without its bearer token",
			Checks: "An `initialize` request without `Authorization`, and one with a wrong bearer token of the same length, are both answered 401, while the same request with the manifest's token is accepted.",
			Why:    "Every local process, and every web page that can reach loopback, can send requests; the per-launch token (256 random bits, only in the private manifest) is what limits the endpoint to its user.",
			Needs:  []string{EndpointLoopback, ManifestLive},
			run:    (*run).endpointToken,
		},
		{
			ID:     EndpointOrigin,
			Title:  "the endpoint refuses a foreign Origin",
			Checks: "An `initialize` request with the manifest's token and `Origin: https://example.invalid` is answered 403.",
			Why:    "MCP's streamable HTTP transport requires it (an Origin that is present and invalid gets 403): a browser page must never drive the application, token or not.",
			Needs:  []string{EndpointLoopback, ManifestLive},
			run:    (*run).endpointOrigin,
		},
		{
			ID:     EndpointHost,
			Title:  "the endpoint refuses a non-loopback Host",
			Checks: "An `initialize` request with the manifest's token and `Host: example.invalid:<port>` is refused with a 4xx status.",
			Why:    "A DNS-rebinding page reaches loopback under its own host name; nothing off the machine names an App Context endpoint, so only a loopback Host is served.",
			Needs:  []string{EndpointLoopback, ManifestLive},
			run:    (*run).endpointHost,
		},
		{
			ID:     EndpointHandshake,
			Title:  "the MCP handshake succeeds in a revision the manifest lists",
			Checks: "kontext's MCP client, as the broker uses it (streamable HTTP with the manifest's bearer token; `server/discover`, else `initialize`), connects, and the negotiated protocol revision is one of the manifest's `protocolVersions`.",
			Why:    "The manifest is the broker's only description of the endpoint; an endpoint that cannot be reached, or speaks a revision the manifest does not list, is listed unavailable.",
			Needs:  []string{ManifestLocation, ManifestLive, EndpointLoopback},
			run:    (*run).endpointHandshake,
		},
		{
			ID:     InstanceEcho,
			Title:  "the endpoint answers as the manifest's instance",
			Checks: "The handshake result's `_meta[\"org.appcontextprotocol/instance\"]` names the manifest's `instanceId` and `appId`, as the broker requires.",
			Why:    "A port can be taken over by another process and a restarted application is a new instance: the broker trusts an endpoint only once it names the launch the manifest describes, and never silently follows a replacement. The rules after this one need it.",
			Needs:  []string{EndpointHandshake},
			run:    (*run).instanceEcho,
		},
		{
			ID:     ActionDialect,
			Title:  "every action's input schema names its dialect",
			Checks: "Every tool of `tools/list` has an `inputSchema` with a non-empty string `$schema`.",
			Why:    "Without `$schema` a client assumes JSON Schema 2020-12; the profile makes the dialect explicit so that a schema written for another draft is never validated by the wrong rules. The broker passes the schema on byte for byte.",
			Needs:  []string{InstanceEcho},
			run:    (*run).actionDialect,
		},
		{
			ID:     ActionDestructiveness,
			Title:  "every action states whether it is destructive",
			Checks: "Every tool gives `readOnlyHint` or `destructiveHint` in its annotations.",
			Why:    "MCP's defaults make an action that states neither destructive, and the broker advertises it so; a profile 0.1 endpoint says which its actions are, so that clients can allow read-only ones freely and `--read-only` keeps them.",
			Needs:  []string{InstanceEcho},
			run:    (*run).actionDestructiveness,
		},
		{
			ID:     ActionConfirmation,
			Title:  "every destructive action declares confirmation",
			Checks: "Every tool with `destructiveHint: true` (and `readOnlyHint` not true) carries `_meta[\"org.appcontextprotocol/action\"].confirmation` with `required: true`. An action stating neither hint is reported by action-destructiveness, not here.",
			Why:    "Confirmation is not an MCP annotation: the broker labels an action as needing it, and asks the user before forwarding, only when the application declares it; the application then enforces it.",
			Needs:  []string{InstanceEcho},
			run:    (*run).actionConfirmation,
		},
		{
			ID:     StateReadable,
			Title:  "the state and every state key read as JSON",
			Checks: "`resources/list` lists `appcontext://apps/<appId>/<instanceId>/state`, which reads as a JSON object; every listed `…/state/<key>` reads as JSON equal to that key's value in the object, and the object has no key that is not listed.",
			Why:    "Agents read state through the broker's resources and `app_state`; a key that is listed but unreadable, or state that disagrees with its keys, is a bug no agent can work around.",
			Needs:  []string{InstanceEcho},
			run:    (*run).stateReadable,
		},
		{
			ID:     StateSubscribable,
			Title:  "the state and every state key can be subscribed to",
			Checks: "The endpoint advertises `resources.subscribe`; subscribing to `…/state` and to every key succeeds (`resources/subscribe` in the legacy eras; in 2026-07-28 a `subscriptions/listen` stream whose acknowledgement honours every URI), and so does unsubscribing. The check calls no action, so it cannot make the state change and does not wait for `notifications/resources/updated`.",
			Why:    "The broker forwards its clients' subscriptions to the application and relies on its updates; a refused subscription leaves agents reading stale state.",
			Needs:  []string{InstanceEcho},
			run:    (*run).stateSubscribable,
		},
		{
			ID:     EventsSubscribed,
			Title:  "events are journalled only while the events resource is subscribed",
			Checks: "`resources/list` lists `…/events`, which reads as a journal (`firstSeq`, `lastSeq`, `dropped`, `events`); it holds no event before the check subscribes; subscribing and unsubscribing succeed; after unsubscribing it holds no event again (within 2 s). The check calls no action, so it cannot make the application emit: an application that journals without subscribers is caught once it has emitted. Another client following the events, such as a running broker, fills the journal too; stop it before checking.",
			Why:    "Events are transient: the profile records them only while someone follows them, bounded (256 events or 64 KiB), so that no application accumulates a history nobody asked for.",
			Needs:  []string{InstanceEcho},
			run:    (*run).eventsSubscribed,
		},
	}
}
