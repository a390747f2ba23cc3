package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// maxOutput bounds what one op may answer (a response body, a program's
// stdout): more is an error rather than memory spent.
const maxOutput = 16 << 20

// callHTTP sends the op's request to the adapter's base_url (or the op's
// url) and parses the answer per format. Status 400 and above is an error
// quoting the body.
func (rt *runtime) callHTTP(ctx context.Context, op *Op, sc scope) (any, error) {
	r := rt.renderer()
	var target string
	if op.URL != "" {
		u, err := r.String(op.URL, sc)
		if err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
		target = u
	} else {
		base, err := r.String(rt.def.BaseURL, sc)
		if err != nil {
			return nil, fmt.Errorf("base_url: %w", err)
		}
		p, err := r.String(op.Path, sc)
		if err != nil {
			return nil, fmt.Errorf("path: %w", err)
		}
		target = strings.TrimRight(base, "/") + "/" + strings.TrimLeft(p, "/")
	}
	if err := checkURL(target); err != nil {
		return nil, err
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("the URL does not parse")
	}
	if len(op.Query) > 0 {
		q := u.Query()
		for _, k := range slices.Sorted(maps.Keys(op.Query)) {
			v, err := r.String(op.Query[k], sc)
			if err != nil {
				return nil, fmt.Errorf("query.%s: %w", k, err)
			}
			if v != "" {
				q.Set(k, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	contentType := ""
	if op.Body != nil {
		if s, ok := op.Body.(string); ok {
			text, err := r.String(s, sc)
			if err != nil {
				return nil, fmt.Errorf("body: %w", err)
			}
			body = strings.NewReader(text)
			contentType = "text/plain; charset=utf-8"
			if json.Valid([]byte(text)) {
				contentType = "application/json"
			}
		} else {
			v, err := r.Value(op.Body, sc)
			if err != nil {
				return nil, fmt.Errorf("body: %w", err)
			}
			b, err := json.Marshal(dropEmpty(v))
			if err != nil {
				return nil, fmt.Errorf("body: %w", err)
			}
			body = bytes.NewReader(b)
			contentType = "application/json"
		}
	}
	method := op.Method
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, errors.New("the request could not be made")
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
	for _, hs := range []struct {
		m     map[string]string
		field string
	}{{rt.def.Headers, "headers"}, {op.Headers, "ops." + op.Name + ".headers"}} {
		vals, err := rt.renderMap(hs.m, sc, hs.field)
		if err != nil {
			return nil, err
		}
		for k, v := range vals {
			req.Header.Set(k, v)
		}
	}
	resp, err := rt.m.opts.HTTPClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			// url.Error quotes the URL, which may carry a secret in
			// its query; the redaction catches it, the host says enough.
			return nil, fmt.Errorf("%s %s: %w", method, u.Host, ue.Err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxOutput+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(data) > maxOutput {
		return nil, fmt.Errorf("the answer is larger than %d MB", maxOutput>>20)
	}
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("%s %s answered %s: %s", method, u.Host+u.Path, resp.Status, clean(string(data), 300))
	}
	return parsePayload(string(data), op.Format), nil
}

// dropEmpty removes object members that are empty strings: values that
// rendered to nothing disappear from a body.
func dropEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && s == "" {
				delete(x, k)
				continue
			}
			x[k] = dropEmpty(val)
		}
	case []any:
		for i, val := range x {
			x[i] = dropEmpty(val)
		}
	}
	return v
}

// callCommand runs the op's argument vector — never through a shell —
// and parses its stdout (or its output file) per format. A non-zero exit
// is an error; the deadline kills the program.
func (rt *runtime) callCommand(ctx context.Context, op *Op, sc scope) (any, error) {
	var outFile string
	if op.OutputFile {
		f, err := os.CreateTemp("", "kontext-adapter-*.out")
		if err != nil {
			return nil, err
		}
		outFile = f.Name()
		f.Close()
		defer os.Remove(outFile)
		sc["output_file"] = outFile
	}
	cmd, err := rt.command(op.Command, firstNonEmpty(op.Cwd, rt.def.Cwd), rt.def.Env, op.Env, sc, "ops."+op.Name+".command")
	if err != nil {
		return nil, err
	}
	if op.Stdin != "" {
		in, err := rt.renderer().String(op.Stdin, sc)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		cmd.Stdin = strings.NewReader(in)
	}
	stdout := &capped{max: maxOutput}
	stderr := &tail{max: 2048}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Args[0], unwrapExec(err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
		return nil, ctx.Err()
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg := fmt.Sprintf("%s exited with status %d", cmd.Args[0], ee.ExitCode())
			if t := strings.TrimSpace(stderr.String()); t != "" {
				msg += ": " + lastLine(t)
			}
			return nil, errors.New(msg)
		}
		return nil, err
	}
	if stdout.over {
		return nil, fmt.Errorf("%s wrote more than %d MB", cmd.Args[0], maxOutput>>20)
	}
	text := stdout.buf.String()
	if outFile != "" {
		b, err := os.ReadFile(outFile)
		if err != nil {
			return nil, fmt.Errorf("reading its output file: %w", err)
		}
		text = string(b)
	}
	return parsePayload(text, op.Format), nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// capped is a buffer that stops growing at max.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return len(p), nil
	}
	return c.buf.Write(p)
}
