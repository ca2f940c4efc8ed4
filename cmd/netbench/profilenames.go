package main

import (
	"strconv"
	"strings"
)

// slug returns s with every byte that is not safe in a file name on any
// system replaced by '_', and a leading '.' too (no hidden files): import
// paths and benchmark names become file names that need no quoting in a
// shell or a URL. "example.com/m/sum" gives "example.com_m_sum",
// "Get/size=64-2" gives "Get_size=64-2".
func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.' && i > 0, c == '=', c == ',', c == '+', c == '-', c == '_':
		default:
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// slugs hands out the file names of a profile directory. Slugs are not
// one-to-one ("a/b" and "a_b" share one) and some file systems ignore
// case, so a name already handed out, ignoring case, gets "~2", "~3" … The
// zero value is ready to use.
type slugs struct {
	used map[string]bool // lower-cased
}

// file returns "<dir>/<name>", slash-separated, unique among those
// returned before. Files are named by adding an extension to it.
func (s *slugs) file(dir, name string) string {
	if s.used == nil {
		s.used = map[string]bool{}
	}
	base := dir + "/" + name
	f := base
	for i := 2; s.used[strings.ToLower(f)]; i++ {
		f = base + "~" + strconv.Itoa(i)
	}
	s.used[strings.ToLower(f)] = true
	return f
}
