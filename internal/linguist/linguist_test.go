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
