package httpdate_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/netkit/netkit/codec/httpdate"
)

func ExampleParse() {
	for _, s := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT",
		"Sun Nov  6 08:49:37 1994",
	} {
		t, err := httpdate.Parse([]byte(s))
		fmt.Println(t, err)
	}
	// Output:
	// 1994-11-06 08:49:37 +0000 UTC <nil>
	// 1994-11-06 08:49:37 +0000 UTC <nil>
	// 1994-11-06 08:49:37 +0000 UTC <nil>
}

func ExampleParse_error() {
	_, err := httpdate.Parse([]byte("Sun, 06 Nox 1994 08:49:37 GMT"))
	var se *httpdate.SyntaxError
	fmt.Println(errors.Is(err, httpdate.ErrMonth), errors.As(err, &se) && se.Offset == 8)
	fmt.Println(err)
	// Output:
	// true true
	// httpdate: bad month at offset 8
}

func ExampleAppend() {
	t := time.Date(1994, 11, 6, 3, 49, 37, 0, time.FixedZone("EST", -5*3600))
	b := []byte("Date: ")
	b = httpdate.Append(b, t)
	fmt.Println(string(b))
	// Output:
	// Date: Sun, 06 Nov 1994 08:49:37 GMT
}

func ExampleParseCookie() {
	t, err := httpdate.ParseCookie([]byte("8:49:37 NOVEMBER 6th, '94"))
	fmt.Println(t, err)
	// Output:
	// 1994-11-06 08:49:37 +0000 UTC <nil>
}
