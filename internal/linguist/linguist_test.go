package linguist

import "testing"

func TestPreferred(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"Unix Assembly", "Assembly", "Motorola 68K Assembly"}, "Assembly"},
		{[]string{"Raku", "Perl"}, "Perl"},
		{[]string{"Objective-C", "C++", "C"}, "C"},
		{[]string{"JavaScript", "TypeScript"}, "TypeScript"},
		{[]string{"Text", "Rust"}, "Rust"},
		{[]string{"", "Zig", "Ada"}, "Ada"},
		{[]string{""}, ""},
	} {
		if got := Preferred(c.in); got != c.want {
			t.Errorf("Preferred(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLanguageExamples(t *testing.T) {
	for _, c := range []struct {
		name, content, want string
	}{
		{"main.go", "package main\n", "Go"},
		{"lib.rs", "", "Rust"},
		{"a.d.ts", "", "TypeScript"},
		{"x.h", "#include <stdio.h>\n", "C"},
		{"x.h", "@interface Foo : NSObject\n@end\n", "Objective-C"},
		{"script", "#!/usr/bin/env -S python3.11 -u\n", "Python"},
		{"script", "#!/bin/sh\nexec perl -x \"$0\" \"$@\"\n", "Perl"},
		{"Makefile", "", "Makefile"},
		{"notes.txt", "/* -*- mode: ruby -*- */\n", "Ruby"},
		{"x.pl", ":- module(x, []).\n", "Prolog"},
		{"x.bin", "\x00\x01", ""},
		{"x.unknownext", "hello", ""},
	} {
		if got := Language(c.name, []byte(c.content)); got != c.want {
			t.Errorf("Language(%q, %q) = %q, want %q", c.name, c.content, got, c.want)
		}
	}
	if LanguageType("Go") != Programming || LanguageType("Markdown") != Prose || LanguageType("JSON") != Data ||
		LanguageType("HTML") != Markup || LanguageType("nope") != Unknown {
		t.Error("LanguageType")
	}
}

func TestRequiredLiteral(t *testing.T) {
	for src, want := range map[string]string{
		`(^|/)\.idea/`:                 ".idea/",
		`(?i)vendor/`:                  "",
		`a*bc`:                         "bc",
		`(ab)+c`:                       "ab",
		`(?:x|y)z{2,}`:                 "z",
		`(3rd|[Tt]hird)[-_]?[Pp]arty/`: "arty/",
		`x?`:                           "",
		`foo|bar`:                      "",
	} {
		l := &lazyRegexp{src: src}
		if got := l.literal(); got != want {
			t.Errorf("literal(%q) = %q, want %q", src, got, want)
		}
		// The prefilter never changes an answer.
		for _, s := range []string{"", "a/.idea/x", "VENDOR/", "bc", "abababc", "xzz", "third-party/", "foo", "x"} {
			if got, direct := l.matchString(s), l.get().MatchString(s); got != direct {
				t.Errorf("%q on %q: prefiltered %v, direct %v", src, s, got, direct)
			}
		}
	}
}
