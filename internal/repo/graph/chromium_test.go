package graph

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium or Chrome on PATH.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// A browser draws the SVG: headless Chromium screenshots it to a PNG that
// decodes, is not blank, and shows the nodes' fill and the cycle's red.
func TestChromiumRendersSVG(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the SVG is not rendered in a browser (apt-get install chromium to run this test)")
	}
	if testing.Short() {
		t.Skip("-short: not starting a browser")
	}
	dir := t.TempDir()
	g := FromModel(shop(), true)
	doc := SVG(g)
	svgPath := filepath.Join(dir, "graph.svg")
	if err := os.WriteFile(svgPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	width, height := svgSize(t, doc)
	pngPath := filepath.Join(dir, "graph.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+pngPath,
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "file://"+svgPath)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	raw, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	if len(raw) == 0 || !bytes.HasPrefix(raw, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("the screenshot is no PNG (%d bytes)", len(raw))
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the screenshot does not decode: %v", err)
	}
	var inked, fill, red int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			switch {
			case near(c, 0xee, 0xf3, 0xfb):
				fill++
			case near(c, 0xc6, 0x28, 0x28):
				red++
			}
			if !near(c, 0xff, 0xff, 0xff) {
				inked++
			}
		}
	}
	total := b.Dx() * b.Dy()
	t.Logf("%dx%d screenshot: %d pixels not white, %d of the nodes' fill, %d of the cycle's red", b.Dx(), b.Dy(), inked, fill, red)
	if inked < total/50 {
		t.Errorf("the screenshot is (nearly) blank: %d of %d pixels not white", inked, total)
	}
	// Seven boxes of at least 60×20 pixels each.
	if fill < len(g.Nodes)*60*20/2 {
		t.Errorf("only %d pixels of the nodes' fill for %d nodes", fill, len(g.Nodes))
	}
	if red == 0 {
		t.Error("no red: the cycle is not drawn")
	}
}

func near(c color.NRGBA, r, g, b uint8) bool {
	d := func(a, b uint8) int {
		if a > b {
			return int(a - b)
		}
		return int(b - a)
	}
	return d(c.R, r) <= 6 && d(c.G, g) <= 6 && d(c.B, b) <= 6
}

// svgSize reads the width and height the SVG declares, rounded up.
func svgSize(t *testing.T, doc string) (int, int) {
	t.Helper()
	attr := func(name string) int {
		i := strings.Index(doc, " "+name+"=\"")
		if i < 0 {
			t.Fatalf("the SVG has no %s", name)
		}
		rest := doc[i+len(name)+3:]
		f, err := strconv.ParseFloat(rest[:strings.IndexByte(rest, '"')], 64)
		if err != nil {
			t.Fatal(err)
		}
		return int(f + 0.999)
	}
	return attr("width"), attr("height")
}
