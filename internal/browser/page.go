package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Page is one browser tab, opened on a URL by Browser.Open. Close it when
// done; Browser.Close closes every page too.
//
// What the page reports (Errors, Requests) keeps coming in after Open
// returns: an error thrown by a timer or an animation frame after the load
// event shows up only once it happened. A test that wants to see those can
// Eval a promise that resolves after them first.
type Page struct {
	b        *Browser
	targetID string
	session  string
	loadTime time.Duration

	mu       sync.Mutex
	errs     []string
	requests []string
	loads    map[string]bool // loader ids whose document has fired load
	waitFor  string          // the loader id whose load Open waits for
	loaded   chan struct{}   // closed when waitFor's load has fired

	closeOnce sync.Once
	closeErr  error
}

// closeTimeout bounds how long Page.Close waits for the browser.
const closeTimeout = 5 * time.Second

// Open opens a new tab with a width×height viewport (CSS pixels, device scale
// factor 1), navigates it to url and waits until the page's load event has
// fired, or until ctx is done. A URL that cannot be loaded at all, such as a
// missing file, is an error; a resource of the page that fails to load is
// not, it is reported by Errors.
func (b *Browser) Open(ctx context.Context, url string, width, height int) (*Page, error) {
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("browser: open %s: viewport %dx%d is not positive", url, width, height)
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.conn.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	p := &Page{b: b, targetID: target.TargetID, loads: make(map[string]bool), loaded: make(chan struct{})}
	if err := p.open(ctx, url, width, height); err != nil {
		p.Close()
		return nil, fmt.Errorf("browser: open %s: %w", url, err)
	}
	return p, nil
}

func (p *Page) open(ctx context.Context, url string, width, height int) error {
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := p.b.conn.call(ctx, "", "Target.attachToTarget",
		map[string]any{"targetId": p.targetID, "flatten": true}, &attached); err != nil {
		return err
	}
	p.session = attached.SessionID
	p.b.conn.handle(p.session, p.event)

	steps := []struct {
		method string
		params any
	}{
		{"Page.enable", nil},
		{"Page.setLifecycleEventsEnabled", map[string]any{"enabled": true}},
		{"Runtime.enable", nil},
		{"Log.enable", nil},
		{"Network.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{
			"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
		}},
	}
	for _, s := range steps {
		if err := p.call(ctx, s.method, s.params, nil); err != nil {
			return err
		}
	}

	var nav struct {
		LoaderID  string `json:"loaderId"`
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigation failed: %s", nav.ErrorText)
	}
	p.mu.Lock()
	p.waitFor = nav.LoaderID
	if p.loads[nav.LoaderID] {
		close(p.loaded)
	}
	p.mu.Unlock()
	select {
	case <-p.loaded:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the load event: %w", context.Cause(ctx))
	case <-p.b.conn.done:
		return fmt.Errorf("waiting for the load event: %w", p.b.conn.err)
	}

	d, err := p.measureLoad(ctx)
	if err != nil {
		return err
	}
	p.loadTime = d
	return nil
}

// measureLoad returns the time from navigation start to the end of the load
// event, as the Navigation Timing API reports it. The protocol's load event
// fires as the page's load event starts, so loadEventEnd may still be zero
// for a moment: measureLoad polls until it is set.
func (p *Page) measureLoad(ctx context.Context) (time.Duration, error) {
	const js = `(() => {
		const n = performance.getEntriesByType("navigation")[0];
		return n ? n.loadEventEnd - n.startTime : -1;
	})()`
	for {
		var ms float64
		if err := p.Eval(ctx, js, &ms); err != nil {
			return 0, fmt.Errorf("measuring the load time: %w", err)
		}
		if ms < 0 {
			return 0, fmt.Errorf("measuring the load time: no navigation timing entry")
		}
		if ms > 0 {
			return time.Duration(ms * float64(time.Millisecond)).Round(time.Microsecond), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("measuring the load time: %w", context.Cause(ctx))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// call sends a command to the page's session.
func (p *Page) call(ctx context.Context, method string, params, result any) error {
	return p.b.conn.call(ctx, p.session, method, params, result)
}

// LoadTime returns the time from the start of the navigation to the end of
// the page's load event, from the page's Performance API.
func (p *Page) LoadTime() time.Duration {
	return p.loadTime
}

// Errors returns what went wrong in the page so far, one message each, in
// the order they happened: console.error and failed console.assert calls,
// uncaught exceptions and unhandled promise rejections, resources that
// failed to load, and the browser's other log entries of level error. The
// slice is the caller's.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

// Requests returns the URL of every request the page made so far, in order,
// including the page itself: a test of a self-contained page can check that
// they are all file: or data: URLs. The slice is the caller's.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Close closes the tab. It is safe to call more than once, and after the
// browser was closed (which closed the tab already).
func (p *Page) Close() error {
	p.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		err := p.b.conn.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.targetID}, nil)
		select {
		case <-p.b.conn.done: // the browser is gone, and the tab with it
		default:
			p.closeErr = err
		}
		if p.session != "" {
			p.b.conn.handle(p.session, nil)
		}
	})
	return p.closeErr
}

// event handles one event of the page's session; it runs on the
// connection's read loop.
func (p *Page) event(method string, params json.RawMessage) {
	switch method {
	case "Page.lifecycleEvent":
		var e struct {
			LoaderID string `json:"loaderId"`
			Name     string `json:"name"`
		}
		if json.Unmarshal(params, &e) != nil || e.Name != "load" {
			return
		}
		p.mu.Lock()
		if !p.loads[e.LoaderID] {
			p.loads[e.LoaderID] = true
			if e.LoaderID == p.waitFor {
				close(p.loaded)
			}
		}
		p.mu.Unlock()
	case "Network.requestWillBeSent":
		var e struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(params, &e) == nil {
			p.mu.Lock()
			p.requests = append(p.requests, e.Request.URL)
			p.mu.Unlock()
		}
	default:
		if msg := errorMessage(method, params); msg != "" {
			p.mu.Lock()
			p.errs = append(p.errs, msg)
			p.mu.Unlock()
		}
	}
}
