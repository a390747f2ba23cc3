package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// The prompts tell the agent which tools to call, in what order, and what
// to look for in each answer; they carry no analysis themselves, so they
// are never stale.

func (h *Handlers) PromptOnboardToRepository(context.Context, *spec.OnboardToRepositoryArgs) (*mcp.PromptResult, error) {
	text := `Get to know this repository before changing anything in it.

1. Call get_repository_context. Note the languages, package managers and frameworks, and which modules the others depend on most (the first modules listed). Read the entry points: they are where execution starts.
2. Call get_architecture. Note each module's layer (its top role) and the edges between layers. Any cycle or layering violation it lists is a place to be careful.
3. For the two or three most central modules, call explain_module: what they export, what depends on them, their recent history.
4. Call get_conventions and follow what it reports (naming, imports, tests, error handling): new code should look like the code around it.
5. Call get_decisions. Explicit decisions (ADRs, the team's .ai/ store) are binding; inferred ones are hints with a confidence.
6. Summarise for the user in a few lines: what the repository is, how it is layered, where to start reading, and the conventions and decisions that constrain changes.

Answers are compact by default; pass detail: "full" when you need the evidence (file and line, or commit) behind a heuristic. Roles, entry point types, conventions and inferred decisions are heuristics: they carry a confidence, never 1.`
	return &mcp.PromptResult{Description: "Onboard to this repository", Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}

func (h *Handlers) PromptReviewChangeImpact(_ context.Context, args *spec.ReviewChangeImpactArgs) (*mcp.PromptResult, error) {
	target, err := promptTarget("review_change_impact", args.Target)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Review what a change to %s would affect, before making it.

1. Call get_change_impact with target %s. Read the modules that depend on it directly and transitively, the affected files (nearest first) and the tests likely to exercise the change.
2. Call explain_module with path %s: its dependents, its exported symbols (which of them the change touches), and its recent history (who changed it lately, and why).
3. Read the decisions and conventions the impact lists as touching the target (get_decisions with detail "full" shows their evidence). A change that goes against an explicit decision needs the user's agreement first.
4. Call get_module_history with target %s if the recent commits may explain why the code is the way it is.
5. Report: what breaks or needs updating, which tests to run (by path), the decisions and conventions that apply, and the risk (many transitive dependents, a cycle, a layering violation). If get_change_impact says truncated, say the list was cut.`, target, target, target, target)
	return &mcp.PromptResult{Description: "Review the impact of changing " + target, Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}

func (h *Handlers) PromptExplainArchitecture(_ context.Context, args *spec.ExplainArchitectureArgs) (*mcp.PromptResult, error) {
	target, err := promptTarget("explain_architecture", args.Target)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf(`Explain how %s fits the architecture of this repository.

1. Call get_architecture with module %s: the module's layer (its top role), the modules around it and the edges between them, and any cycle or layering violation it takes part in.
2. Call explain_module with path %s: its roles with their confidence, entry points, exported symbols, dependencies and dependents.
3. Call get_dependencies with module %s and get_dependents with module %s: what it builds on and what builds on it, directly and transitively.
4. Call get_decisions and keep those that concern it; they say why it is shaped this way.
5. Explain in plain words: its responsibility, which layer it belongs to and whether its dependencies respect the layering, what would be affected by changing it, and anything unusual (cycles, violations, low-confidence roles). Cite files and modules by path.`, target, target, target, target, target)
	return &mcp.PromptResult{Description: "Explain how " + target + " fits the architecture", Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}

// promptTarget checks a prompt's target and quotes it for the message.
func promptTarget(prompt, target string) (string, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return "", mcp.InvalidParams(map[string]any{"prompt": prompt}, mcp.Violation{Path: "/arguments/target", Message: "a file, directory or module is required"})
	}
	return strconv.Quote(target), nil
}
