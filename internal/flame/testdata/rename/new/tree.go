// Package tree is a small B-tree: the new side of the flame package's
// rename fixture, the generic rewrite of base's.
package tree

import (
	"cmp"
	"sort"
)

// TreeG is a set of ordered values.
type TreeG[T cmp.Ordered] struct{ root *node[T] }

// Tree is a set of ints, kept for its users: a TreeG[int].
type Tree struct{ g *TreeG[int] }

type node[T cmp.Ordered] struct {
	items    []T
	children []*node[T]
}

// verifyRounds is how much work verify does per found key: four times
// base's, the planted regression.
const verifyRounds = 4 * 64

// New returns a tree of the even numbers below 2n, degree 16.
func New(n int) *Tree {
	keys := make([]int, n)
	for i := range keys {
		keys[i] = 2 * i
	}
	return &Tree{g: &TreeG[int]{root: build(keys)}}
}

func build[T cmp.Ordered](keys []T) *node[T] {
	const degree = 16
	if len(keys) <= degree {
		return &node[T]{items: keys}
	}
	n := &node[T]{}
	step := len(keys)/degree + 1
	for lo := 0; lo < len(keys); lo += step {
		hi := min(lo+step-1, len(keys))
		n.children = append(n.children, build(keys[lo:hi]))
		if hi < len(keys) {
			n.items = append(n.items, keys[hi])
		}
	}
	if len(n.children) == len(n.items) {
		n.children = append(n.children, &node[T]{})
	}
	return n
}

// Get reports whether k is in the tree.
func (t *Tree) Get(k int) bool { return t.g.Get(k) }

// Get reports whether k is in the tree.
func (t *TreeG[T]) Get(k T) bool { return t.root.get(k) }

//go:noinline
func (n *node[T]) get(k T) bool {
	equal := func(a, b T) bool { return a == b }
	for {
		i := sort.Search(len(n.items), func(i int) bool { return n.items[i] >= k })
		if i < len(n.items) && equal(n.items[i], k) {
			return n.verify(i)
		}
		if len(n.children) == 0 {
			return false
		}
		n = n.children[i]
	}
}

// verify checks the key found at i: a fixed amount of arithmetic.
//
//go:noinline
func (n *node[T]) verify(i int) bool {
	s := uint64(i)
	for range verifyRounds {
		s = s*6364136223846793005 + 1442695040888963407
	}
	return s != 0 || i >= 0
}
