package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sync"

	"github.com/herdbench/herdbench/results/folder"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// File is one file of a rendered report.
type File struct {
	Name string
	Data []byte
}

// Options shape a rendering.
type Options struct {
	// Version is the herdbench that renders, shown in the footer.
	Version string
	// NoPNG skips the PNG copies (report.html only).
	NoPNG bool
	// DPI is the PNGs' resolution; 0 means PNGDPI.
	DPI int
}

// PNGDPI is the resolution of the PNG copies: a 9 in chart is 1080 px wide.
const PNGDPI = 120

// Render renders runs (one, or several to overlay) into report.html and one
// PNG per chart, in that order.
func Render(runs []*Run, o Options) ([]File, error) {
	return RenderContext(context.Background(), runs, o)
}

// RenderContext is Render that stops drawing when ctx is done and returns
// its error.
func RenderContext(ctx context.Context, runs []*Run, o Options) ([]File, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("report: no results to render")
	}
	v := newView(runs)
	charts := v.charts()
	svgs, pngs, err := drawCharts(ctx, charts, &o)
	if err != nil {
		return nil, err
	}
	html, err := renderHTML(v, charts, svgs, o)
	if err != nil {
		return nil, err
	}
	return reportFiles(html, charts, pngs, o), nil
}

// drawCharts draws every chart as SVG and, unless o.NoPNG, as PNG at
// o.DPI (PNGDPI when 0, which it sets). Charts are independent: they are
// drawn in parallel (rasterizing the PNGs is most of the work), each
// chart's SVG and PNG in one goroutine because they draw the same plot.
func drawCharts(ctx context.Context, charts []chart, o *Options) (svgs, pngs [][]byte, err error) {
	if o.DPI <= 0 {
		o.DPI = PNGDPI
	}
	svgs = make([][]byte, len(charts))
	pngs = make([][]byte, len(charts))
	errs := make([]error, len(charts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range charts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if errs[i] = ctx.Err(); errs[i] != nil {
				return
			}
			if svgs[i], errs[i] = renderSVG(c); errs[i] != nil || o.NoPNG || ctx.Err() != nil {
				return
			}
			pngs[i], errs[i] = renderPNG(c, o.DPI)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("report: chart %s: %w", charts[i].ID, err)
		}
	}
	return svgs, pngs, nil
}

// reportFiles is report.html and the PNG of every chart that has data.
func reportFiles(html []byte, charts []chart, pngs [][]byte, o Options) []File {
	files := []File{{Name: "report.html", Data: html}}
	if !o.NoPNG {
		for i, c := range charts {
			if c.Empty {
				continue
			}
			files = append(files, File{Name: c.ID + ".png", Data: pngs[i]})
		}
	}
	return files
}

var xmlProlog = regexp.MustCompile(`^<\?xml[^>]*\?>\s*`)

// renderSVG draws c as an SVG document, without the XML prolog so it can be
// inlined in HTML.
func renderSVG(c chart) ([]byte, error) {
	b, err := drawOn(c, vgsvg.New(c.W, c.H))
	return xmlProlog.ReplaceAll(b, nil), err
}

func renderPNG(c chart, dpi int) ([]byte, error) {
	canvas := vgimg.NewWith(vgimg.UseWH(c.W, c.H), vgimg.UseDPI(dpi))
	return drawOn(c, vgimg.PngCanvas{Canvas: canvas})
}

// drawOn draws c on canvas and returns what the canvas writes.
func drawOn(c chart, canvas interface {
	vg.CanvasSizer
	io.WriterTo
}) (b []byte, err error) {
	defer func() {
		// gonum/plot panics on some impossible inputs (e.g. a log axis
		// over non-positive values): report it as this chart's error.
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing: %v", r)
		}
	}()
	c.draw(draw.New(canvas))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFiles writes files into dir atomically, creating dir if needed.
func WriteFiles(dir string, files []File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, f := range files {
		path, err := folder.ChildIn(dir, f.Name)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := folder.WriteFileAtomic(path, f.Data); err != nil {
			return fmt.Errorf("report: writing %s: %w", f.Name, err)
		}
	}
	return nil
}

// RenderDir re-renders the report of the results folder dir in place, a
// run's, a sweep's or a cliff search's: what a run does at its end and
// `herdbench report DIR` does later.
func RenderDir(dir string, o Options) error {
	if IsCliff(dir) {
		c, err := LoadCliff(dir)
		if err != nil {
			return err
		}
		files, err := RenderCliff(context.Background(), c, o)
		if err != nil {
			return err
		}
		return WriteFiles(dir, files)
	}
	if IsSweep(dir) {
		sw, err := LoadSweep(dir)
		if err != nil {
			return err
		}
		files, err := RenderSweep(context.Background(), sw, o)
		if err != nil {
			return err
		}
		return WriteFiles(dir, files)
	}
	r, err := Load(dir)
	if err != nil {
		return err
	}
	files, err := Render([]*Run{r}, o)
	if err != nil {
		return err
	}
	return WriteFiles(dir, files)
}
