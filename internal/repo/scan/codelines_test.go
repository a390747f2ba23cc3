package scan

import (
	"strings"
	"testing"
)

func TestCodeLines(t *testing.T) {
	for _, c := range []struct {
		path, src string
		want      map[int]string // lines that must read so
		never     []string       // text no line may hold
	}{
		{"src/main.rs", "const HELP: &str = \"fn main() {}\";\nconst RAW: &str = r#\"\nfn main() {}\n\"#;\n/* fn main() */\n\n#[tokio::main]\nasync fn main() {\n}\n",
			map[int]string{1: `const HELP:&str="";`, 8: "async fn main(){"}, []string{"fn main() {}"}},
		{"crates/x/src/glue.rs", "const CODE: &str = \"\\\nuse std::io;\n\nfn main() {\n}\n\";\nfn real() {}\n",
			map[int]string{1: `const CODE:&str=""`, 6: ";", 7: "fn real(){}"}, []string{"fn main(", "use std"}},
		{"cmd/x/main.go", "package main\n\n// func main() in a comment\nvar s = `\nfunc main() {}\n`\n\nfunc main() {\n\thttp.HandleFunc(\"/users\", h)\n}\n",
			map[int]string{1: "package main", 8: "func main(){", 9: `http.HandleFunc("/",h)`}, []string{"comment", "func main(){}"}},
		{"app/views.py", "\"\"\"Routes.\n\n    @app.route(\"/old\")\n\"\"\"\n\n@app.route(\"/new\",\n           methods=[\"GET\"])\ndef new():\n    pass\n\nif __name__ == \"__main__\":\n    app.run()\n",
			map[int]string{1: "s", 6: "@app.route(s,            methods=[s])", 11: "if __name__ == s:"}, []string{"@app.route(s)", "/old"}},
		{"Main.kt", "package x\n\n\nfun main(args: Array<String>) {\n    val s = \"\"\"\nfun main() {}\n\"\"\"\n}\n",
			map[int]string{4: "fun main(args:Array<String>){"}, []string{"fun main(){}"}},
		{"Main.java", "class Main {\n  // static void main(String[] a)\n  public static void main(String[] args) {}\n}\n",
			map[int]string{3: "public static void main(String[]args){}"}, []string{"static void main(String[]a)"}},
		{"src/server.ts", "const doc = `app.get('/x')`;\n// app.get('/y', h)\napp.get('/z', handler);\nnew Worker('./w.js');\n",
			map[int]string{1: `const doc="";`, 3: `app.get("/",handler);`, 4: `new Worker("");`}, []string{"app.get('/x')", "/y"}},
	} {
		got := map[int]string{}
		prev := 0
		for _, l := range CodeLines(c.path, []byte(c.src)) {
			if l.Line <= prev {
				t.Errorf("%s: line %d after line %d", c.path, l.Line, prev)
			}
			prev = l.Line
			got[l.Line] = l.Text
		}
		for line, want := range c.want {
			if got[line] != want {
				t.Errorf("%s line %d = %q, want %q", c.path, line, got[line], want)
			}
		}
		for line, text := range got {
			for _, n := range c.never {
				if strings.Contains(text, n) {
					t.Errorf("%s line %d = %q holds %q", c.path, line, text, n)
				}
			}
		}
	}
	if CodeLines("README.md", []byte("fn main() {}")) != nil {
		t.Errorf("a language without a lexer has no code lines")
	}
}
