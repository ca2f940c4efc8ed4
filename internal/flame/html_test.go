package flame

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// pageOf writes g's page and returns the data embedded in it.
func pageOf(t *testing.T, g *Graph) *pageData {
	t.Helper()
	var buf bytes.Buffer
	if err := g.WriteHTML(&buf, "test"); err != nil {
		t.Fatal(err)
	}
	return embedded(t, buf.String())
}

// embedded returns the data in the page's flame-data script.
func embedded(t *testing.T, page string) *pageData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="flame-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no flame-data script in the page")
	}
	var d pageData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("flame-data: %v", err)
	}
	if len(d.Name) != len(d.Depth) || len(d.Name) != len(d.Value) {
		t.Fatalf("flame-data arrays have lengths %d, %d, %d", len(d.Name), len(d.Depth), len(d.Value))
	}
	return &d
}

func TestHTMLSelfContained(t *testing.T) {
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;</script><b>x": {3},
		"main;a&b\"c":        {2},
	})
	g, err := FromProfiles([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteHTML(&buf, `<title> & "quotes"`); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"http:", "https:", "//cdn", "<link", " src=", "@import", "url(", "<b>", "<title> &"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("page has %d </script>, want 3 (onerror, data, code): a name ended a script", n)
	}
	for _, want := range []string{`<svg id="flame"`, "document.body.dataset.frames", "dataset.errors", "data-name", "&lt;title&gt; &amp; &#34;quotes&#34;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	d := embedded(t, page)
	var names []string
	for _, n := range d.Name {
		names = append(names, d.Names[n])
	}
	if got := strings.Join(names, "|"); got != `all|main|</script><b>x|a&b"c` {
		t.Errorf("frames in preorder: %s", got)
	}
	if d.Total != 5 || d.Value[0] != 5 || d.Depth[2] != 2 || d.Diff || d.Color != nil {
		t.Errorf("data: %+v", d)
	}
}
