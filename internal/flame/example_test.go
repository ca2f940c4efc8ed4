package flame_test

import (
	"fmt"

	"github.com/netkit/netkit/internal/flame"
)

// The names under which a differential graph matches frames of a
// non-generic function and of its generic rewrite.
func ExampleNormalizeName() {
	for _, name := range []string{
		"github.com/google/btree.(*node).get",
		"github.com/google/btree.(*node[go.shape.int]).get",
		"github.com/google/btree.(*node[...]).get",
		"github.com/google/btree.items.find.func1",
		"github.com/google/btree.items[go.shape.int].find.func2.1",
		"main.serve.gowrap3",
	} {
		fmt.Println(flame.NormalizeName(name))
	}
	// Output:
	// github.com/google/btree.(*node).get
	// github.com/google/btree.(*node).get
	// github.com/google/btree.(*node).get
	// github.com/google/btree.items.find.func*
	// github.com/google/btree.items.find.func*
	// main.serve.func*
}

// A type renamed by a rewrite, as netbench flame -rename BTree=BTreeG
// passes it to DiffWith.
func ExampleParseRename() {
	r, err := flame.ParseRename("BTree=BTreeG")
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := flame.DiffOptions{Renames: []flame.Rename{r}}
	fmt.Println(opts.Renames[0].Old, "→", opts.Renames[0].New)
	_, err = flame.ParseRename("BTree")
	fmt.Println(err)
	// Output:
	// BTree → BTreeG
	// rename "BTree": want old=new, two names without spaces or semicolons
}
