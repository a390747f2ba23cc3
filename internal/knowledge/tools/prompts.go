package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// maxPromptTasks is the most bootstrap tasks kontext-init works through in
// one session (ctx_init hands out at most as many at once).
const maxPromptTasks = 5

func (h *Handlers) PromptKontextInit(_ context.Context, args *spec.KontextInitArgs) (*mcp.PromptResult, error) {
	tasks := 1
	if args.Tasks != "" {
		n, err := strconv.Atoi(strings.TrimSpace(args.Tasks))
		if err != nil || n < 1 || n > maxPromptTasks {
			return nil, mcp.InvalidParams(map[string]any{"prompt": "kontext-init"}, mcp.Violation{Path: "/arguments/tasks", Message: fmt.Sprintf("a number from 1 to %d", maxPromptTasks)})
		}
		tasks = n
	}
	text := fmt.Sprintf(`Build up this repository's team knowledge, %d task(s) in this session.

1. Call ctx_brief to see what the store already holds and what its State section asks for. If the repository has no knowledge store, stop and ask the user whether to set kontext up; never create one on your own.
2. Pick the %d most important gaps: a module without a description, a decision the code embodies but the store does not record (ctx_why on the central paths shows the commits that explain them), a convention everyone follows but nobody wrote down.
3. For each, read the code and the commits, then record it with ctx_capture: a short title that states the fact, a body with Context, Decision (or the learning) and Consequences, and the paths it governs. Keep it to what a newcomer could not guess from the code.
4. End with ctx_inbox: list what you captured so the user can review it; ctx_prepare_commit promotes it with the next commit.`, tasks, tasks)
	return &mcp.PromptResult{Description: "Bootstrap and deepen the repository's knowledge", Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}

func (h *Handlers) PromptKontextCommit(context.Context, *spec.KontextCommitArgs) (*mcp.PromptResult, error) {
	text := `Prepare the current change for commit.

1. Call ctx_prepare_commit. Read the decisions it quotes for the changed paths: if the change goes against one, say so before anything else, and either change the code or supersede the decision (ctx_capture with supersedes) with the user's agreement.
2. Review the inbox candidates it lists, those touching the changed files first. Promote the ones that still hold and drop the ones that do not: call ctx_prepare_commit again with promote and drop.
3. If the change embodies a decision, a convention or a lesson that is not captured yet, capture it (ctx_capture) and promote it the same way.
4. Fix any check it reports as an error (a secret, a missing title).
5. Commit, adding the trailers it lists (Decision: <id>, …) to the message.`
	return &mcp.PromptResult{Description: "Prepare the current change for commit", Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}

func (h *Handlers) PromptKontextReflect(context.Context, *spec.KontextReflectArgs) (*mcp.PromptResult, error) {
	text := `Look back at this session and capture at most three durable things — decisions made, conventions established, lessons learned the hard way, incidents — that the next person (or agent) working here should know.

- Only what stays true beyond this task and cannot be read off the code. Skip the obvious, the temporary and the personal.
- Check ctx_search first so you do not capture what the store already says; if something you learned replaces an entry, capture the new one with supersedes.
- One ctx_capture each: a title that states the fact, a body with the context and the consequence, the paths it concerns.
- If you are unsure whether the team should see it, use visibility "private".`
	return &mcp.PromptResult{Description: "Capture at most three durable things from the session", Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}
