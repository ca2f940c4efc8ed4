package flame

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageOf writes g's page and returns the data embedded in it.
func pageOf(t *testing.T, g *Graph) *pageData {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, g.WriteHTML(&buf, "test"))
	return embedded(t, buf.String())
}

// embedded returns the data in the page's flame-data script.
func embedded(t *testing.T, page string) *pageData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="flame-data">(.*?)</script>`).FindStringSubmatch(page)
	require.NotNil(t, m, "no flame-data script in the page")
	var d pageData
	require.NoError(t, json.Unmarshal([]byte(m[1]), &d), "flame-data")
	require.Len(t, d.Depth, len(d.Name), "flame-data: a depth per frame")
	require.Len(t, d.Value, len(d.Name), "flame-data: a value per frame")
	return &d
}

func TestHTMLSelfContained(t *testing.T) {
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;</script><b>x": {3},
		"main;a&b\"c":        {2},
	})
	g, err := FromProfiles([]*profile.Profile{p}, Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, g.WriteHTML(&buf, `<title> & "quotes"`))
	page := buf.String()
	for _, bad := range []string{"http:", "https:", "//cdn", "<link", " src=", "@import", "<b>", "<title> &"} {
		assert.NotContains(t, page, bad, "page contains %q", bad)
	}
	// url() only for the page's own SVG patterns, "url(#id)".
	assert.NotRegexp(t, `url\([^#]`, page, "page has a url() that is not a fragment")
	assert.Equal(t, 3, strings.Count(page, "</script>"), "</script> tags; want 3 (onerror, data, code): a name ended a script")
	for _, want := range []string{`<svg id="flame"`, "document.body.dataset.frames", "dataset.errors", "data-name", "&lt;title&gt; &amp; &#34;quotes&#34;"} {
		assert.Contains(t, page, want, "page lacks %q", want)
	}
	d := embedded(t, page)
	var names []string
	for _, n := range d.Name {
		names = append(names, d.Names[n])
	}
	assert.Equal(t, `all|main|</script><b>x|a&b"c`, strings.Join(names, "|"), "frames in preorder")
	assert.Equal(t, int64(5), d.Total, "data: Total")
	assert.Equal(t, int64(5), d.Value[0], "data: root value")
	assert.Equal(t, int32(2), d.Depth[2], "data: depth of the third frame")
	assert.False(t, d.Diff, "data: Diff")
	assert.Nil(t, d.Color, "data: Color")
}
