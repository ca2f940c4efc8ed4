package flame

import (
	"fmt"
	"strings"
)

// NormalizeName returns the name under which a differential graph matches
// a frame of one profile with a frame of the other, so that a refactoring
// that renames functions mechanically does not make every frame differ:
//
//   - Type arguments are dropped: every bracketed group that follows a
//     name, with the brackets nested in it, goes, so the instantiations
//     "pkg.(*node[go.shape.int]).get", "pkg.(*node[...]).get" and
//     "pkg.(*node[T]).get" and the non-generic "pkg.(*node).get" are
//     all "pkg.(*node).get", and "pkg.Map[go.shape.string,go.shape.int]"
//     is "pkg.Map".
//   - The numbering of function literals goes: a run of the compiler's
//     closure suffixes, ".func1", ".func2.1" (a literal inside a
//     literal), ".gowrap1" (the wrapper of a go statement),
//     ".deferwrap1" and "-range1" (the body of a range-over-func loop),
//     is one ".func*", so "pkg.F.func3" and "pkg.F.gowrap1.func1" are
//     both "pkg.F.func*". Two literals of one function become one name.
//   - The method-value suffix "-fm" goes: "pkg.(*T).M-fm" is
//     "pkg.(*T).M".
//   - Inlining marks that tools append to a name go: a trailing
//     " (inline)", " (inlined)", "[inline]", "[inlined]" or "_[i]".
//
// A name that has none of these is returned as it is.
func NormalizeName(name string) string {
	for _, mark := range []string{" (inline)", " (inlined)", "[inline]", "[inlined]", "_[i]"} {
		name = strings.TrimSuffix(name, mark)
	}
	name = stripTypeArgs(name)
	name = strings.TrimSuffix(name, "-fm")
	return foldClosures(name)
}

// stripTypeArgs drops every balanced bracketed group that follows a
// character of a name. An unbalanced bracket is kept with the rest.
func stripTypeArgs(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '[' && i > 0 && isNameByte(s[i-1]) {
			if end := closing(s, i); end > 0 {
				i = end
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// closing returns the index of the bracket that closes the one at open,
// or -1.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func isNameByte(c byte) bool {
	return c == '_' || c == '*' || c == ')' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// closureSuffix returns the length of the closure suffix at s[i:] (".funcN",
// ".gowrapN", ".deferwrapN", "-rangeN", or ".N" right after another one),
// or 0.
func closureSuffix(s string, i int, afterClosure bool) int {
	for _, p := range []string{".func", ".gowrap", ".deferwrap", "-range", "."} {
		if p == "." && !afterClosure {
			continue
		}
		if !strings.HasPrefix(s[i:], p) {
			continue
		}
		j := i + len(p)
		k := j
		for k < len(s) && '0' <= s[k] && s[k] <= '9' {
			k++
		}
		if k > j && (k == len(s) || !isIdentByte(s[k])) {
			return k - i
		}
	}
	return 0
}

// foldClosures replaces each run of closure suffixes by ".func*".
func foldClosures(s string) string {
	if !strings.Contains(s, ".func") && !strings.Contains(s, "wrap") && !strings.Contains(s, "-range") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		n := closureSuffix(s, i, false)
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		for n > 0 {
			i += n
			n = closureSuffix(s, i, true)
		}
		b.WriteString(".func*")
	}
	return b.String()
}

// Rename tells a differential graph that Old in the base profile's names
// is New in the new profile's: a type or function renamed in a
// refactoring, as when a generic rewrite of BTree is named BTreeG. The
// renaming applies to both profiles' normalized names (see
// NormalizeName), at every occurrence of Old that is a whole identifier
// path: neither preceded nor followed by a letter, digit or underscore. So
// Rename{"BTree", "BTreeG"} turns "btree.(*BTree).Get" into
// "btree.(*BTreeG).Get" and leaves "btree.BTreeLike" alone.
type Rename struct{ Old, New string }

// ParseRename parses "old=new" as a Rename.
func ParseRename(s string) (Rename, error) {
	old, new, ok := strings.Cut(s, "=")
	if !ok || old == "" || new == "" || strings.ContainsAny(old+new, " \t;") {
		return Rename{}, fmt.Errorf("rename %q: want old=new, two names without spaces or semicolons", s)
	}
	return Rename{old, new}, nil
}

// String returns r as "old=new".
func (r Rename) String() string { return r.Old + "=" + r.New }

// apply replaces the whole-identifier occurrences of r.Old in s.
func (r Rename) apply(s string) string {
	if r.Old == "" || !strings.Contains(s, r.Old) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], r.Old)
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		end := j + len(r.Old)
		whole := (j == 0 || !isIdentByte(s[j-1])) && (end == len(s) || !isIdentByte(s[end]))
		b.WriteString(s[i:j])
		if whole {
			b.WriteString(r.New)
		} else {
			b.WriteString(r.Old)
		}
		i = end
	}
	return b.String()
}
