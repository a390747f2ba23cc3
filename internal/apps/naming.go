package apps

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// Name budgets of typed tools: those of every tool name kontext makes at
// run time.
const (
	DefaultNameBudget = mcp.ToolNameBudget
	MaxNameBudget     = mcp.MaxToolName
	// MinNameBudget leaves room for one character of app and action, the
	// separators and a digest that is never cut.
	MinNameBudget = digestLen + 4
	// digestLen is the digest's length in base32 characters (50 bits);
	// a collision lengthens it.
	digestLen = 10
)

// surface is what a typed tool's name is a digest of: the launch, the
// action's registration and everything the action advertises. Field order
// is the canonical order of the digest's JSON.
type surface struct {
	Profile        string          `json:"profile"`
	AppID          string          `json:"appId"`
	InstanceID     string          `json:"instanceId"`
	Action         string          `json:"action"`
	RegistrationID string          `json:"registrationId"`
	Title          string          `json:"title"`
	Description    string          `json:"description"`
	InputSchema    json.RawMessage `json:"inputSchema"`
	OutputSchema   json.RawMessage `json:"outputSchema"`
	Annotations    json.RawMessage `json:"annotations"`
	Confirmation   json.RawMessage `json:"confirmation"`
}

// sum is the SHA-256 of the surface's canonical JSON (schemas compacted,
// so whitespace the application sends does not change a name).
func (s surface) sum() [32]byte {
	for _, raw := range []*json.RawMessage{&s.InputSchema, &s.OutputSchema, &s.Annotations, &s.Confirmation} {
		*raw = compact(*raw)
	}
	b, _ := json.Marshal(s) // every field encodes
	return sha256.Sum256(b)
}

func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

var digestEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// toolName is <app>_<action>_<digest> within budget: the action's slug is
// shortened first, then the app's; the digest never is.
func toolName(app, action string, sum [32]byte, n, budget int) string {
	d := digestEncoding.EncodeToString(sum[:])[:n]
	room := budget - len(d) - 2
	a, b := slug(app, "app"), slug(action, "action")
	if len(a)+len(b) > room {
		// Keep at least a third of the room for the app, so that tools of
		// different applications stay told apart by their prefix.
		keepApp := min(len(a), max(room/3, 1))
		b = b[:min(len(b), room-keepApp)]
		a = a[:min(len(a), room-len(b))]
	}
	return strings.Trim(a, "_-") + "_" + strings.Trim(b, "_-") + "_" + d
}

// slug lowercases s to [a-z0-9_-], each run of other characters one "_".
func slug(s, fallback string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
			under = r == '_'
		default:
			if !under && b.Len() > 0 {
				b.WriteByte('_')
				under = true
			}
		}
	}
	out := strings.Trim(b.String(), "_-")
	if out == "" {
		return fallback
	}
	return out
}

// appSlug names an application in its tools: the last segment of its
// reverse-DNS appId (dev.kontext.notes → notes).
func appSlug(appID string) string {
	if i := strings.LastIndexByte(appID, '.'); i >= 0 && i < len(appID)-1 {
		return appID[i+1:]
	}
	return appID
}

// named is one typed tool waiting for its name.
type named struct {
	app, action string
	sum         [32]byte
	name        string
}

// assignNames names every typed tool at once: names that collide lengthen
// their digests together, one character at a time, so the result does not
// depend on the order the tools arrived in.
func assignNames(tools []*named, budget int) error {
	if budget < MinNameBudget || budget > MaxNameBudget {
		return fmt.Errorf("name budget %d is outside %d…%d", budget, MinNameBudget, MaxNameBudget)
	}
	// A digest may grow until only the separators and one character of
	// app and action are left (SHA-256 gives 52 characters).
	maxDigest := min(52, budget-4)
	lengths := make([]int, len(tools))
	for i := range tools {
		lengths[i] = digestLen
	}
	for {
		byName := map[string][]int{}
		for i, t := range tools {
			t.name = toolName(t.app, t.action, t.sum, lengths[i], budget)
			byName[t.name] = append(byName[t.name], i)
		}
		clash := false
		for _, idx := range byName {
			if len(idx) < 2 {
				continue
			}
			same := true
			for _, i := range idx[1:] {
				same = same && tools[i].sum == tools[idx[0]].sum
			}
			if same {
				continue // one surface listed twice: the caller drops the copies
			}
			for _, i := range idx {
				if lengths[i] >= maxDigest {
					return fmt.Errorf("tools %s of %s: their digests agree on %d characters", tools[i].action, tools[i].app, maxDigest)
				}
				lengths[i]++
				clash = true
			}
		}
		if !clash {
			return nil
		}
	}
}

// sortedNames is for tests and logs.
func sortedNames(tools []*named) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.name)
	}
	slices.Sort(out)
	return out
}
