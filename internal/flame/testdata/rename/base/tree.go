// Package tree is a small B-tree of ints: the base side of the flame
// package's rename fixture.
package tree

import "sort"

// Tree is a set of ints.
type Tree struct{ root *node }

type node struct {
	items    []int
	children []*node
}

// verifyRounds is how much work verify does per found key.
const verifyRounds = 64

// New returns a tree of the even numbers below 2n, degree 16.
func New(n int) *Tree {
	keys := make([]int, n)
	for i := range keys {
		keys[i] = 2 * i
	}
	return &Tree{root: build(keys)}
}

func build(keys []int) *node {
	const degree = 16
	if len(keys) <= degree {
		return &node{items: keys}
	}
	n := &node{}
	step := len(keys)/degree + 1
	for lo := 0; lo < len(keys); lo += step {
		hi := min(lo+step-1, len(keys))
		n.children = append(n.children, build(keys[lo:hi]))
		if hi < len(keys) {
			n.items = append(n.items, keys[hi])
		}
	}
	if len(n.children) == len(n.items) {
		n.children = append(n.children, &node{})
	}
	return n
}

// Get reports whether k is in the tree.
func (t *Tree) Get(k int) bool { return t.root.get(k) }

//go:noinline
func (n *node) get(k int) bool {
	for {
		i := sort.Search(len(n.items), func(i int) bool { return n.items[i] >= k })
		if i < len(n.items) && n.items[i] == k {
			return n.verify(k)
		}
		if len(n.children) == 0 {
			return false
		}
		n = n.children[i]
	}
}

// verify checks a found key: a fixed amount of arithmetic.
//
//go:noinline
func (n *node) verify(k int) bool {
	s := uint64(k)
	for range verifyRounds {
		s = s*6364136223846793005 + 1442695040888963407
	}
	return s != 0 || k >= 0
}
