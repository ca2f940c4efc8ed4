package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
)

// Eval evaluates the JavaScript expression js in the page, awaiting it if it
// is a promise, and decodes its value, converted to JSON by the browser, into
// out (as json.Unmarshal does) unless out is nil. An exception thrown by js
// is returned as an error, not reported by Errors. A value that JSON cannot
// hold (undefined, NaN, a DOM node) decodes into out as an error.
func (p *Page) Eval(ctx context.Context, js string, out any) error {
	var r struct {
		Result    remoteObject      `json:"result"`
		Exception *exceptionDetails `json:"exceptionDetails"`
	}
	err := p.call(ctx, "Runtime.evaluate", map[string]any{
		"expression":    js,
		"returnByValue": true,
		"awaitPromise":  true,
	}, &r)
	if err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("browser: eval: %s", r.Exception)
	}
	if out == nil {
		return nil
	}
	if r.Result.Value == nil {
		return fmt.Errorf("browser: eval: the result (%s) has no JSON value", r.Result)
	}
	if err := json.Unmarshal(r.Result.Value, out); err != nil {
		return fmt.Errorf("browser: eval: %w", err)
	}
	return nil
}

// Screenshot returns a PNG image of the page's viewport, as large as the
// width and height given to Open.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	return p.screenshot(ctx, map[string]any{"format": "png"})
}

// ScreenshotFullPage returns a PNG image of the whole page, the part scrolled
// out of the viewport included: as wide and as tall as the page's content.
func (p *Page) ScreenshotFullPage(ctx context.Context) ([]byte, error) {
	var m struct {
		Content struct {
			Width  float64 `json:"width"`
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	if err := p.call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
		return nil, err
	}
	return p.screenshot(ctx, map[string]any{
		"format":                "png",
		"captureBeyondViewport": true,
		"clip": map[string]any{
			"x": 0, "y": 0, "scale": 1,
			"width":  math.Ceil(m.Content.Width),
			"height": math.Ceil(m.Content.Height),
		},
	})
}

func (p *Page) screenshot(ctx context.Context, params map[string]any) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", params, &r); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return nil, fmt.Errorf("browser: Page.captureScreenshot: %w", err)
	}
	return png, nil
}
