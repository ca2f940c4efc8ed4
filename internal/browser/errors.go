package browser

import (
	"encoding/json"
	"fmt"
	"strings"
)

// remoteObject is the part of the protocol's Runtime.RemoteObject that
// describes a value.
type remoteObject struct {
	Type                string          `json:"type"`
	Subtype             string          `json:"subtype,omitempty"`
	Value               json.RawMessage `json:"value,omitempty"`
	UnserializableValue string          `json:"unserializableValue,omitempty"`
	Description         string          `json:"description,omitempty"`
}

// String formats o as console.log would, roughly: strings bare, other
// values as JSON or by their description.
func (o remoteObject) String() string {
	switch {
	case o.Type == "string":
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
	case o.UnserializableValue != "":
		return o.UnserializableValue
	case o.Type == "undefined":
		return "undefined"
	case o.Description != "":
		return o.Description
	}
	return string(o.Value)
}

// exceptionDetails is the protocol's Runtime.ExceptionDetails.
type exceptionDetails struct {
	Text         string        `json:"text"`
	URL          string        `json:"url"`
	LineNumber   int           `json:"lineNumber"`   // 0-based
	ColumnNumber int           `json:"columnNumber"` // 0-based
	Exception    *remoteObject `json:"exception"`
}

// String returns "Uncaught Error: boom (file:///x.html:3:9)": the text, the
// first line of the exception's description (the rest is its stack), and
// where it was thrown.
func (d *exceptionDetails) String() string {
	msg := d.Text
	if d.Exception != nil {
		desc, _, _ := strings.Cut(d.Exception.String(), "\n")
		if desc != "" && desc != msg {
			msg = strings.TrimSpace(msg + " " + desc)
		}
	}
	if d.URL != "" {
		msg += fmt.Sprintf(" (%s:%d:%d)", d.URL, d.LineNumber+1, d.ColumnNumber+1)
	}
	return msg
}

// errorMessage returns the message that the event method with params
// reports for Page.Errors, or "" when the event reports no error.
func errorMessage(method string, params json.RawMessage) string {
	switch method {
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string         `json:"type"`
			Args []remoteObject `json:"args"`
		}
		if json.Unmarshal(params, &e) != nil || (e.Type != "error" && e.Type != "assert") {
			return ""
		}
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = a.String()
		}
		return "console." + e.Type + ": " + strings.Join(args, " ")
	case "Runtime.exceptionThrown":
		var e struct {
			Details exceptionDetails `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &e) != nil {
			return "exception: (undecodable)"
		}
		return "exception: " + e.Details.String()
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Source string `json:"source"`
				Level  string `json:"level"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		if json.Unmarshal(params, &e) != nil || e.Entry.Level != "error" {
			return ""
		}
		msg := "log (" + e.Entry.Source + "): " + e.Entry.Text
		if e.Entry.URL != "" {
			msg += " " + e.Entry.URL
		}
		return msg
	}
	return ""
}
