// Package results holds the structured answers of the apps toolset's
// stable tools. The generator reflects each type into the tool's
// outputSchema, so what a handler returns is what tools/list promises.
package results

import "encoding/json"

// Instances answers apps_list: every application instance the broker
// knows of, the unavailable ones with the reason.
type Instances struct {
	Instances []Instance `json:"instances"`
}

// Instance is one launch of an application.
type Instance struct {
	// InstanceID is opaque and names this launch only: a restarted
	// application has another one.
	InstanceID string   `json:"instanceId"`
	AppID      string   `json:"appId"`
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Workspaces []string `json:"workspaces"`
	StartedAt  string   `json:"startedAt,omitempty"`
	// Available is false when the broker could not validate or reach the
	// instance; Reason says why, and no tool reaches it.
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// Channel is how the broker reaches it: "mcp" (the direct endpoint)
	// or "legacy-websocket" (an old manifest without one).
	Channel string `json:"channel,omitempty"`
	// Tools is how many of its actions are typed tools.
	Tools int `json:"tools"`
}

// Description answers app_describe: one instance's semantic surface.
type Description struct {
	AppID      string        `json:"appId"`
	InstanceID string        `json:"instanceId"`
	Name       string        `json:"name"`
	Version    string        `json:"version"`
	Workspaces []string      `json:"workspaces"`
	Actions    []Action      `json:"actions"`
	StateKeys  []string      `json:"stateKeys"`
	Events     []EventType   `json:"events"`
	Resources  []ResourceRef `json:"resources"`
}

// Action is one semantic action as the application registered it.
type Action struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Tool is the typed tool that calls it ("" when it is not one, under
	// --read-only for instance).
	Tool         string          `json:"tool,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the application's hints exactly as given.
	Annotations          json.RawMessage `json:"annotations,omitempty"`
	ConfirmationRequired bool            `json:"confirmationRequired,omitempty"`
	ConfirmationPrompt   string          `json:"confirmationPrompt,omitempty"`
}

// EventType is one kind of event an application may emit.
type EventType struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// ResourceRef names one resource of the instance.
type ResourceRef struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// State answers app_state: the keys asked for (all without a selection).
type State struct {
	AppID      string                     `json:"appId"`
	InstanceID string                     `json:"instanceId"`
	State      map[string]json.RawMessage `json:"state"`
	// Missing are the keys asked for that the application does not have.
	Missing []string `json:"missing,omitempty"`
}

// Call answers app_call: the application's result, with which launch gave
// it.
type Call struct {
	AppID      string            `json:"appId"`
	InstanceID string            `json:"instanceId"`
	Action     string            `json:"action"`
	Content    []json.RawMessage `json:"content"`
	// StructuredContent is the application's structured result, when it
	// gave one.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}
