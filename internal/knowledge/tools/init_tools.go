package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/bootstrap"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// pipeline is the bootstrap of the repository.
func (h *Handlers) pipeline(o *knowledge.Opened) *bootstrap.Pipeline {
	p := bootstrap.NewPipeline(o.Root, o.State, h.svc.RepoEngine())
	p.ConfigOptions = config.Options{Getenv: h.svc.Getenv}
	return p
}

func (h *Handlers) CtxInit(ctx context.Context, in *spec.CtxInitInput) (*mcp.ToolResult, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	p := h.pipeline(o)
	var b strings.Builder
	branch, err := p.StoreElsewhere(ctx)
	if err != nil {
		return nil, err
	}
	if branch != "" {
		return mcp.TextResult(fmt.Sprintf("The team's knowledge lives on branch %s (it has %s/), not on this one. kontext does not start a second store here: check out %s, or merge it into this branch, and run %s again.", branch, o.Store.Dir(), branch, knowledge.VoiceOf(ctx).Tool("ctx_init"))), nil
	}
	// A store folder without a file in it is not set up yet.
	if !o.Store.Exists() || o.Store.Empty() {
		if !in.Bootstrap {
			return mcp.TextResult(fmt.Sprintf(`This repository has no knowledge store (%s/) yet.

Setting kontext up writes %s/ (configuration, an architecture overview, a doc for each main module, the index) from a scan of the code and its history; the team reviews and commits it like code. Do it only when the user asks for it:
- ctx_init with bootstrap: true does the scan, history and render (no git hooks), then returns the first task;
- or, in a shell, kontext init does the same and installs the git hooks.

Until then ctx_capture accepts visibility: private only, and nothing is promoted.`, o.Store.Dir(), o.Store.Dir())), nil
		}
		written, err := p.Bootstrap(ctx)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		h.changed()
		fmt.Fprintf(&b, "Set up the knowledge store: %s.\nThe git hooks are not installed (kontext hooks install, or kontext init, does it). Review and commit %s/ with the change.\n\n", strings.Join(written, ", "), o.Store.Dir())
	}
	tasks, prog, err := p.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	if len(tasks) > in.Count {
		tasks = tasks[:in.Count]
	}
	b.WriteString(p.Text(tasks, prog, o.Config.Init.TaskInlineChars))
	return mcp.TextResult(b.String()), nil
}

func (h *Handlers) CtxInitSubmit(ctx context.Context, in *spec.CtxInitSubmitInput) (*mcp.ToolResult, error) {
	v := knowledge.VoiceOf(ctx)
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	p := h.pipeline(o)
	sub := bootstrap.Submission{TaskID: in.TaskID}
	if in.Summary != nil {
		sub.Summary = *in.Summary
	}
	if in.Overview != nil {
		sub.Overview = *in.Overview
	}
	if in.Skip != nil {
		sub.Skip = *in.Skip
	}
	if in.Reason != nil {
		sub.Reason = *in.Reason
	}
	for _, d := range in.Decisions {
		sub.Decisions = append(sub.Decisions, bootstrap.DecisionInput{
			Title: d.Title, Decision: d.Decision, Summary: deref(d.Summary), Context: deref(d.Context),
			Consequences: deref(d.Consequences), Date: deref(d.Date), Status: string(derefStatus(d.Status)),
			Paths: d.Paths, Commits: d.Commits, Tags: d.Tags,
		})
	}
	for _, l := range in.Learnings {
		sub.Learnings = append(sub.Learnings, bootstrap.LearningInput{Title: l.Title, Body: l.Body, Paths: l.Paths, Tags: l.Tags})
	}
	res, err := p.Submit(ctx, sub)
	if err != nil {
		return nil, failure(err, v)
	}
	h.changed()
	var b strings.Builder
	if res.Skipped {
		fmt.Fprintf(&b, "Skipped %s.\n", in.TaskID)
	} else {
		b.WriteString(submittedText(res, v))
	}
	if len(res.Redacted) > 0 {
		b.WriteString(redactedLine(res.Redacted))
	}
	tasks, prog, err := p.Tasks(ctx)
	if err == nil {
		if len(tasks) > 1 {
			tasks = tasks[:1]
		}
		b.WriteString("\nNext:\n" + p.Text(tasks, prog, o.Config.Init.TaskInlineChars))
	}
	return mcp.TextResult(b.String()), nil
}

// submittedText says what a submission did, file by file: a resubmission
// says what it rewrote, and what already held it.
func submittedText(res *bootstrap.Submitted, v knowledge.Voice) string {
	var b strings.Builder
	line := func(what string, files []string) {
		if len(files) > 0 {
			fmt.Fprintf(&b, "%s %s.\n", what, strings.Join(files, ", "))
		}
	}
	line("Wrote", res.Created)
	line("Rewrote in place (same files and ids):", res.Rewritten)
	line("Removed this task's earlier entries that the submission no longer has:", res.Removed)
	line("Unchanged (they already hold this submission):", res.Unchanged)
	var other []string // the index README
	for _, w := range res.Written {
		if !slices.Contains(res.Created, w) && !slices.Contains(res.Rewritten, w) {
			other = append(other, w)
		}
	}
	line("Updated the index:", other)
	if len(res.Written)+len(res.Removed) > 0 {
		fmt.Fprintf(&b, "Review and commit them with the change (%s stages them).\n", v.Tool("ctx_prepare_commit"))
	} else {
		b.WriteString("Nothing changed.\n")
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefStatus(s *spec.CtxInitSubmitInputDecisionsElemStatus) spec.CtxInitSubmitInputDecisionsElemStatus {
	if s == nil {
		return ""
	}
	return *s
}
