package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kontext-dev/kontext/gen/errcodes"
	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

var requiredFieldRE = lazyregexp.New(`^field (\S+) in \S+: (.*)$`)

// decodeParams decodes params into a generated protocol type; its
// UnmarshalJSON checks required members and enums.
func decodeParams(params json.RawMessage, into any) error {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, into); err != nil {
		v := Violation{Path: "", Message: err.Error()}
		if m := requiredFieldRE.FindStringSubmatch(err.Error()); m != nil {
			v = Violation{Path: "/" + m[1], Message: m[2]}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			v = Violation{Path: "/" + strings.ReplaceAll(te.Field, ".", "/"), Message: "must be " + te.Type.String()}
			if strings.HasPrefix(te.Value, "number ") {
				// A number beyond float64 (1e400) anywhere in params.
				v.Message = te.Value + " is out of range"
			}
		}
		return InvalidParams(nil, v)
	}
	return nil
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) implementation(f features) protocol.Implementation {
	impl := protocol.Implementation{Name: s.info.Name, Version: s.info.Version}
	if f.titles {
		impl.Title = strPtr(s.info.Title)
	}
	return impl
}

func (s *Server) serverCapabilities(f features) protocol.ServerCapabilities {
	c := s.capabilities()
	caps := protocol.ServerCapabilities{Logging: &protocol.EmptyObject{}}
	if c.tools {
		caps.Tools = &protocol.ListChangedCapability{ListChanged: Bool(true)}
	}
	if c.prompts {
		caps.Prompts = &protocol.ListChangedCapability{ListChanged: Bool(false)}
	}
	if c.resources {
		caps.Resources = &protocol.ResourcesCapability{Subscribe: Bool(true), ListChanged: Bool(true)}
	}
	if c.completions && f.completions {
		caps.Completions = &protocol.EmptyObject{}
	}
	return caps
}

func (c *call) initialize() (any, error) {
	var p protocol.InitializeParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	version := negotiateLegacy(p.ProtocolVersion)
	ss := c.ss
	ss.mu.Lock()
	ss.initialized, ss.version, ss.clientInfo, ss.clientCaps = true, version, p.ClientInfo, p.Capabilities
	ss.mu.Unlock()
	ss.log.Info("client connected", "client", p.ClientInfo.Name, "clientVersion", p.ClientInfo.Version, "asked", p.ProtocolVersion, "negotiated", version)
	res := protocol.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    ss.srv.serverCapabilities(featuresOf(version)),
		ServerInfo:      ss.srv.implementation(featuresOf(version)),
		Instructions:    strPtr(ss.srv.instructions()),
	}
	if len(ss.srv.opts.ResultMeta) > 0 {
		res.Meta = marshal(ss.srv.opts.ResultMeta)
	}
	return res, nil
}

func (c *call) discover() (any, error) {
	return protocol.DiscoverResult{
		SupportedVersions: SupportedVersions(),
		Capabilities:      c.ss.srv.serverCapabilities(c.feat),
		Instructions:      strPtr(c.ss.srv.instructions()),
	}, nil
}

func (c *call) setLevel() (any, error) {
	var p struct {
		Level *string `json:"level"`
	}
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if p.Level == nil || levelIndex(*p.Level) < 0 {
		return nil, InvalidParams(nil, Violation{Path: "/level", Message: "must be one of " + strings.Join(levels, ", ")})
	}
	c.ss.mu.Lock()
	c.ss.logLevel = levelIndex(*p.Level)
	c.ss.mu.Unlock()
	return struct{}{}, nil
}

// cursor is what an opaque cursor encodes: which list, where the next page
// starts, and the version of the lists it was issued for.
type cursor struct {
	List    string `json:"l"`
	Offset  int    `json:"o"`
	Version uint64 `json:"v"`
}

// pageOf returns the [start, end) of the page a request asks for in a list
// of the given version, and the cursor of the next page ("" at the end).
func (c *call) pageOf(list string, total int, version uint64) (int, int, *string, error) {
	var p protocol.PaginatedParams
	if err := decodeParams(c.params, &p); err != nil {
		return 0, 0, nil, err
	}
	srv := c.ss.srv
	start := 0
	if p.Cursor != nil {
		raw, err := base64.RawURLEncoding.DecodeString(*p.Cursor)
		var cur cursor
		if err == nil {
			err = json.Unmarshal(raw, &cur)
		}
		if err != nil || cur.List != list || cur.Offset < 0 || cur.Offset > total {
			return 0, 0, nil, InvalidParams(map[string]any{"cursor": *p.Cursor}, Violation{Path: "/cursor", Message: "not a cursor this server issued for " + list})
		}
		if cur.Version != version {
			return 0, 0, nil, InvalidParams(map[string]any{"cursor": *p.Cursor}, Violation{Path: "/cursor", Message: "the list changed since this cursor was issued; list again without a cursor"})
		}
		start = cur.Offset
	}
	end := min(start+srv.opts.PageSize, total)
	var next *string
	if end < total {
		raw, _ := json.Marshal(cursor{List: list, Offset: end, Version: version})
		s := base64.RawURLEncoding.EncodeToString(raw)
		next = &s
	}
	return start, end, next, nil
}

// preparedResult is a result encoded for the negotiated revision, the
// 2026-07-28 envelope included: finish sends it as it is. The list methods
// answer with one, prepared once per list version and kept (listPage), so
// every session shares its bytes: a conn copies them, never changes them.
type preparedResult []byte

// prepare encodes a result as finish would.
func (c *call) prepare(result any) preparedResult {
	body := marshal(result)
	if c.modern {
		body = c.modernEnvelope(methods[c.method], body)
	}
	return body
}

// listKey is the cache key of the page of list that starts at start.
func (c *call) listKey(list string, start int) listPageKey {
	return listPageKey{list: list, feat: c.feat, start: start}
}

// servePage answers the page of list that starts at start from the cache,
// or encodes it with build and keeps it for the list's version.
func (c *call) servePage(list string, version uint64, start int, build func() any) preparedResult {
	srv := c.ss.srv
	key := c.listKey(list, start)
	if page, ok := srv.cachedListPage(version, key); ok {
		return page.body
	}
	body := c.prepare(build())
	srv.cacheListPage(version, key, listPage{body: body})
	return body
}

func (c *call) listTools() (any, error) {
	tools, version := c.ss.srv.toolsAndVersion()
	tools = slices.DeleteFunc(slices.Clone(tools), func(t *Tool) bool { return t.Hidden })
	start, end, next, err := c.pageOf("tools", len(tools), version)
	if err != nil {
		return nil, err
	}
	return c.servePage("tools", version, start, func() any {
		out := protocol.ListToolsResult{Tools: make([]protocol.Tool, 0, end-start), NextCursor: next}
		for _, t := range tools[start:end] {
			out.Tools = append(out.Tools, c.describeTool(t))
		}
		return out
	}), nil
}

// describeTool is a tool as the negotiated revision defines it.
func (c *call) describeTool(t *Tool) protocol.Tool {
	d := protocol.Tool{Name: t.Name, Description: strPtr(t.Description), InputSchema: t.InputSchema, Meta: t.Meta}
	if c.feat.titles {
		d.Title = strPtr(t.Title)
	}
	if c.feat.structured && t.OutputSchema != nil {
		d.OutputSchema = t.OutputSchema
	}
	if c.feat.annotations {
		a := t.Annotations
		d.Annotations = &protocol.ToolAnnotations{
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: a.Destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   a.OpenWorld,
		}
		if !c.feat.titles {
			d.Annotations.Title = strPtr(t.Title)
		}
	}
	return d
}

func (c *call) callTool() (any, error) {
	name, err := c.toolName()
	if err != nil {
		return nil, err
	}
	t, ok := c.ss.srv.tool(name)
	if !ok {
		return nil, InvalidParams(map[string]any{"tool": name}, Violation{Path: "/name", Message: "unknown tool " + name})
	}
	args := c.envelope.Arguments
	validator, err := t.validator.compiled()
	if err != nil {
		return nil, err
	}
	if vs, problems := validator.validate(args); len(vs) > 0 {
		if t.InvalidArguments == InvalidArgumentsToolResult && !c.ss.srv.opts.RefuseInvalidArguments {
			return c.toolResult(invalidArgumentsResult(name, problems)), nil
		}
		for i := range vs {
			vs[i].Path = "/arguments" + vs[i].Path
		}
		return nil, InvalidParams(map[string]any{"tool": name}, vs...)
	}
	res, err := t.Call(c.ctx, args)
	if err != nil {
		if e, ok := asProtocolError(err); ok {
			if t.InvalidArguments == InvalidArgumentsToolResult && !c.ss.srv.opts.RefuseInvalidArguments && e.Code == errcodes.InvalidParams {
				return c.toolResult(invalidArgumentsResult(name, refusedArguments(e))), nil
			}
			return nil, e
		}
		res = ErrorResult("Error: %s", err.Error())
	}
	return c.toolResult(res), nil
}

// toolResult is a tool's answer as the negotiated revision shapes it,
// encoded.
func (c *call) toolResult(res *ToolResult) json.RawMessage {
	if res == nil {
		res = &ToolResult{}
	}
	out := protocol.CallToolResult{Content: res.Content}
	if out.Content == nil {
		out.Content = []json.RawMessage{}
	}
	if res.IsError {
		out.IsError = Bool(true)
	}
	if res.Structured != nil && c.feat.structured {
		out.StructuredContent = marshal(res.Structured)
	}
	mirror := res.mirror
	if f := c.ss.srv.opts.OutputFilter; f != nil {
		out.Content, out.StructuredContent = filterResult(f, out.Content, out.StructuredContent, res.mirror)
		mirror = nil // the filter may have rewritten it
	}
	if body, ok := encodeToolResult(out, mirror); ok {
		return body
	}
	// Some block is not JSON: encoding/json words the failure.
	return marshal(out)
}

// encodeToolResult encodes a result as marshal does, in one pass: instead
// of reflecting over the struct and compacting every raw block into a
// buffer of its own, it compacts them straight into the answer; mirror,
// the block StructuredResult encoded, is copied as it is. It reports false
// when a block is not valid JSON.
func encodeToolResult(out protocol.CallToolResult, mirror json.RawMessage) (json.RawMessage, bool) {
	size := 64 + len(out.StructuredContent)
	for _, block := range out.Content {
		size += len(block) + 1
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString(`{"content":[`)
	for i, block := range out.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case block == nil:
			b.WriteString("null")
		case len(block) > 0 && len(block) == len(mirror) && &block[0] == &mirror[0]:
			b.Write(block)
		default:
			if json.Compact(b, block) != nil {
				return nil, false
			}
		}
	}
	b.WriteByte(']')
	if out.IsError != nil {
		b.WriteString(`,"isError":` + strconv.FormatBool(*out.IsError))
	}
	if len(out.StructuredContent) > 0 {
		b.WriteString(`,"structuredContent":`)
		if json.Compact(b, out.StructuredContent) != nil {
			return nil, false
		}
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// invalidArgumentsResult is the tool result that answers invalid arguments
// under InvalidArgumentsToolResult: one line an agent can act on.
func invalidArgumentsResult(tool string, problems []string) *ToolResult {
	return ErrorResult("Invalid arguments for %s: %s. %s did not run; call it again with the arguments corrected.", tool, strings.Join(problems, "; "), tool)
}

// refusedArguments reads the problems out of an invalid-params error a
// handler returned, naming each argument as problems does.
func refusedArguments(e *Error) []string {
	var out []string
	if data, ok := e.Data.(map[string]any); ok {
		if vs, ok := data["violations"].([]Violation); ok {
			for _, v := range vs {
				tokens := strings.Split(strings.TrimPrefix(strings.TrimPrefix(v.Path, "/arguments"), "/"), "/")
				if tokens[0] == "" {
					out = append(out, v.Message)
					continue
				}
				for i, t := range tokens {
					tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
				}
				out = append(out, paramPath(tokens)+": "+v.Message)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, e.Message)
	}
	return out
}

func (c *call) listPrompts() (any, error) {
	srv := c.ss.srv
	srv.mu.RLock()
	prompts := make([]*Prompt, 0, len(srv.promptOrder))
	for _, name := range srv.promptOrder {
		prompts = append(prompts, srv.prompts[name])
	}
	version := srv.listVersion
	srv.mu.RUnlock()
	start, end, next, err := c.pageOf("prompts", len(prompts), version)
	if err != nil {
		return nil, err
	}
	return c.servePage("prompts", version, start, func() any {
		out := protocol.ListPromptsResult{Prompts: make([]protocol.Prompt, 0, end-start), NextCursor: next}
		for _, p := range prompts[start:end] {
			d := protocol.Prompt{Name: p.Name, Description: strPtr(p.Description)}
			if c.feat.titles {
				d.Title = strPtr(p.Title)
			}
			for _, a := range p.Arguments {
				d.Arguments = append(d.Arguments, protocol.PromptArgument{Name: a.Name, Description: strPtr(a.Description), Required: Bool(a.Required)})
			}
			out.Prompts = append(out.Prompts, d)
		}
		return out
	}), nil
}

func (c *call) getPrompt() (any, error) {
	var p protocol.GetPromptParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	srv := c.ss.srv
	srv.mu.RLock()
	prompt, ok := srv.prompts[p.Name]
	srv.mu.RUnlock()
	if !ok {
		return nil, InvalidParams(map[string]any{"prompt": p.Name}, Violation{Path: "/name", Message: "unknown prompt " + p.Name})
	}
	var vs []Violation
	known := map[string]bool{}
	for _, a := range prompt.Arguments {
		known[a.Name] = true
		if a.Required && p.Arguments[a.Name] == "" {
			vs = append(vs, Violation{Path: "/arguments/" + a.Name, Message: "required argument missing"})
		}
	}
	for _, name := range sortedKeys(p.Arguments) {
		if !known[name] {
			vs = append(vs, Violation{Path: "/arguments/" + name, Message: "unknown argument"})
		}
	}
	if len(vs) > 0 {
		return nil, InvalidParams(map[string]any{"prompt": p.Name}, vs...)
	}
	res, err := prompt.Get(c.ctx, p.Arguments)
	if err != nil {
		return nil, err
	}
	out := protocol.GetPromptResult{Description: strPtr(res.Description), Messages: make([]protocol.PromptMessage, 0, len(res.Messages))}
	f := c.ss.srv.opts.OutputFilter
	for _, m := range res.Messages {
		// A text message keeps the member order it always had (text, type).
		content, err := json.Marshal(protocol.TextContent{Type: "text", Text: filterText(f, m.Text)})
		if err != nil {
			return nil, err
		}
		if m.Content != nil {
			content = m.Content
			if filtered := filterJSON(f, content); filtered != nil {
				content = filtered
			}
		}
		out.Messages = append(out.Messages, protocol.PromptMessage{Role: protocol.PromptMessageRole(m.Role), Content: content})
	}
	return out, nil
}

func (c *call) describeResource(r *Resource) protocol.Resource {
	d := protocol.Resource{URI: r.URI, Name: r.Name, Description: strPtr(r.Description), MIMEType: strPtr(r.MIMEType)}
	if c.feat.titles {
		d.Title = strPtr(r.Title)
	}
	return d
}

func (c *call) listResources() (any, error) {
	srv := c.ss.srv
	srv.mu.RLock()
	all := make([]*Resource, 0, len(srv.resourceURIs))
	for _, uri := range srv.resourceURIs {
		all = append(all, srv.resources[uri])
	}
	templates := append([]*ResourceTemplate(nil), srv.templates...)
	version := srv.listVersion
	srv.mu.RUnlock()
	for _, t := range templates {
		if t.List == nil || !srv.rooted() {
			continue
		}
		listed, err := t.List(c.ctx)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", t.URITemplate, err)
		}
		for _, r := range listed {
			if r.MIMEType == "" {
				r.MIMEType = t.MIMEType
			}
			all = append(all, r)
		}
	}
	start, end, next, err := c.pageOf("resources", len(all), version)
	if err != nil {
		return nil, err
	}
	// The templates' resources are listed anew for every request, so a
	// kept page is served only when it was encoded from the same ones.
	listed := make([]listedResource, 0, len(all))
	for _, r := range all {
		listed = append(listed, listedResource{r.URI, r.Name, r.Title, r.Description, r.MIMEType})
	}
	key := c.listKey("resources", start)
	if page, ok := srv.cachedListPage(version, key); ok && slices.Equal(page.listed, listed) {
		return page.body, nil
	}
	out := protocol.ListResourcesResult{Resources: make([]protocol.Resource, 0, end-start), NextCursor: next}
	for _, r := range all[start:end] {
		out.Resources = append(out.Resources, c.describeResource(r))
	}
	body := c.prepare(out)
	srv.cacheListPage(version, key, listPage{body: body, listed: listed})
	return body, nil
}

func (c *call) listTemplates() (any, error) {
	srv := c.ss.srv
	srv.mu.RLock()
	templates := append([]*ResourceTemplate(nil), srv.templates...)
	version := srv.listVersion
	srv.mu.RUnlock()
	start, end, next, err := c.pageOf("templates", len(templates), version)
	if err != nil {
		return nil, err
	}
	return c.servePage("templates", version, start, func() any {
		out := protocol.ListResourceTemplatesResult{ResourceTemplates: make([]protocol.ResourceTemplate, 0, end-start), NextCursor: next}
		for _, t := range templates[start:end] {
			d := protocol.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Description: strPtr(t.Description), MIMEType: strPtr(t.MIMEType)}
			if c.feat.titles {
				d.Title = strPtr(t.Title)
			}
			out.ResourceTemplates = append(out.ResourceTemplates, d)
		}
		return out
	}), nil
}

// resolve reads the resource a URI names, or returns -32602 (never -32002).
func (c *call) resolve(uri string) (*ResourceContents, error) {
	srv := c.ss.srv
	srv.mu.RLock()
	r, ok := srv.resources[uri]
	templates := append([]*ResourceTemplate(nil), srv.templates...)
	srv.mu.RUnlock()
	var contents *ResourceContents
	var err error
	switch {
	case ok:
		contents, err = r.Read(c.ctx)
		if contents != nil && contents.MIMEType == "" {
			contents.MIMEType = r.MIMEType
		}
	default:
		for _, t := range templates {
			vars, match := matchTemplate(t.URITemplate, uri)
			if !match {
				continue
			}
			contents, err = t.Read(c.ctx, vars)
			if contents != nil && contents.MIMEType == "" {
				contents.MIMEType = t.MIMEType
			}
			if contents != nil || err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if contents == nil {
		return nil, InvalidParams(map[string]any{"uri": uri}, Violation{Path: "/uri", Message: "no such resource: " + uri})
	}
	if contents.URI == "" {
		contents.URI = uri
	}
	return contents, nil
}

func (c *call) readResource() (any, error) {
	var p protocol.ReadResourceParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	contents, err := c.resolve(p.URI)
	if err != nil {
		return nil, err
	}
	if contents.Blob != nil {
		blob := base64.StdEncoding.EncodeToString(contents.Blob)
		return protocol.ReadBlobResourceResult{Contents: []protocol.BlobResourceContents{{URI: contents.URI, MIMEType: strPtr(contents.MIMEType), Blob: blob}}}, nil
	}
	text := filterText(c.ss.srv.opts.OutputFilter, contents.Text)
	return protocol.ReadResourceResult{Contents: []protocol.TextResourceContents{{URI: contents.URI, MIMEType: strPtr(contents.MIMEType), Text: text}}}, nil
}

// knownResource reports whether uri names a resource the server serves now.
func (c *call) knownResource(uri string) bool {
	_, err := c.resolve(uri)
	return err == nil
}

func (c *call) subscribe() (any, error) {
	var p protocol.SubscribeParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	if !c.knownResource(p.URI) {
		return nil, InvalidParams(map[string]any{"uri": p.URI}, Violation{Path: "/uri", Message: "no such resource: " + p.URI})
	}
	c.ss.mu.Lock()
	already := c.ss.subscribed[p.URI]
	c.ss.subscribed[p.URI] = true
	c.ss.mu.Unlock()
	if !already {
		c.ss.srv.follow([]string{p.URI}, 1)
	}
	return struct{}{}, nil
}

func (c *call) unsubscribe() (any, error) {
	var p protocol.SubscribeParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	c.ss.mu.Lock()
	was := c.ss.subscribed[p.URI]
	delete(c.ss.subscribed, p.URI)
	c.ss.mu.Unlock()
	if was {
		c.ss.srv.follow([]string{p.URI}, -1)
	}
	return struct{}{}, nil
}

// matchTemplate matches uri against a template of simple {var} expressions;
// a variable matches one or more characters other than "/".
func matchTemplate(template, uri string) (map[string]string, bool) {
	vars := map[string]string{}
	for len(template) > 0 {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			return vars, template == uri
		}
		if !strings.HasPrefix(uri, template[:open]) {
			return nil, false
		}
		uri = uri[open:]
		end := strings.IndexByte(template, '}')
		if end < open {
			return nil, false
		}
		name := template[open+1 : end]
		template = template[end+1:]
		next := len(uri)
		if len(template) > 0 {
			// The variable ends where the next literal begins.
			lit := template
			if i := strings.IndexByte(lit, '{'); i >= 0 {
				lit = lit[:i]
			}
			next = strings.Index(uri, lit)
			if next < 0 {
				return nil, false
			}
		}
		value := uri[:next]
		if value == "" || strings.Contains(value, "/") {
			return nil, false
		}
		if decoded, err := unescape(value); err == nil {
			value = decoded
		}
		vars[name] = value
		uri = uri[next:]
	}
	return vars, uri == ""
}
