// Package lazyregexp is a regular expression compiled the first time it is
// used. A package-level regexp.MustCompile runs at program start, in every
// run of the binary — each git hook, each `kontext mcp` before its first
// answer — whether or not the expression is ever needed; the Go
// command's own internal/lazyregexp exists for the same reason.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use.
type Regexp struct {
	str  string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the expression str, to be compiled (and to panic if it is
// invalid, as regexp.MustCompile does) on first use. It is for
// package-level expressions: each is registered for CompileAll, so an
// expression compiled at run time belongs to package regexp instead.
func New(str string) *Regexp {
	r := &Regexp{str: str}
	registryMu.Lock()
	registry = append(registry, r)
	registryMu.Unlock()
	return r
}

var (
	registryMu sync.Mutex
	registry   []*Regexp
)

// CompileAll compiles every expression made with New so far and returns
// the first that does not compile: a package's test calls it, so that a
// bad expression fails the tests instead of the first run that needs it.
func CompileAll() error {
	registryMu.Lock()
	all := append([]*Regexp(nil), registry...)
	registryMu.Unlock()
	for _, r := range all {
		if _, err := regexp.Compile(r.str); err != nil {
			return err
		}
	}
	return nil
}

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.str) })
	return r.rx
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

func (r *Regexp) String() string                 { return r.str }
func (r *Regexp) Match(b []byte) bool            { return r.re().Match(b) }
func (r *Regexp) MatchString(s string) bool      { return r.re().MatchString(s) }
func (r *Regexp) FindIndex(b []byte) []int       { return r.re().FindIndex(b) }
func (r *Regexp) FindString(s string) string     { return r.re().FindString(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
func (r *Regexp) FindSubmatchIndex(b []byte) []int {
	return r.re().FindSubmatchIndex(b)
}
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.re().FindAllIndex(b, n) }
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.re().FindAllString(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.re().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}
func (r *Regexp) SubexpNames() []string { return r.re().SubexpNames() }
