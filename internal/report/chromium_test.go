package report

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The report is checked the way a reader opens it: report.html from disk
// in headless Chromium (Debian's chromium package), driven through the
// DevTools protocol over a pipe (--remote-debugging-pipe: JSON messages
// separated by NUL on file descriptors 3 and 4), which needs no network
// port and no library.

// chromiumPath finds a Chromium; the test skips without one.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not found: install Debian's chromium and fonts-liberation " +
		"(apt-get install -y chromium fonts-liberation) or set CHROMIUM to a Chromium binary")
	return ""
}

// browser is a headless Chromium this test started, in its own process
// group so that it and its helper processes end with the test.
type browser struct {
	cmd      *exec.Cmd
	toChrome *os.File
	events   chan map[string]any
	mu       sync.Mutex
	pending  map[int]chan map[string]any
	nextID   int
	done     chan struct{}
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromiumPath(t)
	profile := t.TempDir()
	cmdR, cmdW, err := os.Pipe() // commands: we write, Chromium reads on fd 3
	must(t, err)
	outR, outW, err := os.Pipe() // replies: Chromium writes on fd 4
	must(t, err)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "--window-size=1280,1000", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	cmdR.Close()
	outW.Close()
	b := &browser{cmd: cmd, toChrome: cmdW, events: make(chan map[string]any, 1000),
		pending: map[int]chan map[string]any{}, done: make(chan struct{})}
	go b.read(outR)
	t.Cleanup(func() {
		b.call("", "Browser.close", nil) // best effort; the process group is ended below anyway
		b.toChrome.Close()
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		// Helper processes (renderer, zygote) share the group: end any
		// left, so that no process outlives the test.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	return b
}

func (b *browser) read(r *os.File) {
	defer close(b.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28) // screenshots come as one large message
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := strings.IndexByte(string(data), 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if id, ok := m["id"].(float64); ok {
			b.mu.Lock()
			ch := b.pending[int(id)]
			delete(b.pending, int(id))
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // a flood of events must not block replies
		}
	}
}

// call sends a command (to a page session when session is set) and waits
// for its reply.
func (b *browser) call(session, method string, params map[string]any) (map[string]any, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan map[string]any, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.toChrome.Write(append(data, 0)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if e, ok := m["error"]; ok {
			return nil, fmt.Errorf("%s: %v", method, e)
		}
		res, _ := m["result"].(map[string]any)
		return res, nil
	case <-b.done:
		return nil, errors.New(method + ": chromium closed the pipe")
	case <-time.After(60 * time.Second):
		return nil, errors.New(method + ": no reply in 60 s")
	}
}

// pageCheck is what loading report.html in the browser found.
type pageCheck struct {
	Errors  []string `json:"-"`       // console errors, exceptions and error log entries
	Figures int      `json:"figures"` // <figure> elements with an <svg>
	SVGs    []struct {
		ID       string  `json:"id"`
		Children int     `json:"children"`
		Width    float64 `json:"width"`
		Height   float64 `json:"height"`
	} `json:"svgs"`
	Missing []string `json:"missing"` // ids of figures shown as a note instead
	// Findings is how many findings the page lists; FindingsBottom and
	// FigureTop are where they end and the first figure starts (px).
	Findings       int     `json:"findings"`
	FindingsBottom float64 `json:"findingsBottom"`
	FigureTop      float64 `json:"figureTop"`
}

// open loads file in a new page, waits for its load event, measures every
// figure and saves a full-page screenshot to shot.
func (b *browser) open(t *testing.T, file, shot string) pageCheck {
	t.Helper()
	res, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	must(t, err)
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": res["targetId"], "flatten": true})
	must(t, err)
	session, _ := res["sessionId"].(string)
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		_, err := b.call(session, m, nil)
		must(t, err)
	}
	abs, err := filepath.Abs(file)
	must(t, err)
	_, err = b.call(session, "Page.navigate", map[string]any{"url": "file://" + abs})
	must(t, err)
	var check pageCheck
	collect := func(m map[string]any) bool {
		if m["sessionId"] != session {
			return false
		}
		p, _ := m["params"].(map[string]any)
		switch m["method"] {
		case "Page.loadEventFired":
			return true
		case "Runtime.exceptionThrown":
			check.Errors = append(check.Errors, fmt.Sprint("exception: ", p["exceptionDetails"]))
		case "Runtime.consoleAPICalled":
			if p["type"] == "error" || p["type"] == "assert" {
				check.Errors = append(check.Errors, fmt.Sprint("console.", p["type"], ": ", p["args"]))
			}
		case "Log.entryAdded":
			if e, _ := p["entry"].(map[string]any); e["level"] == "error" {
				check.Errors = append(check.Errors, fmt.Sprint("log: ", e["text"], " ", e["url"]))
			}
		}
		return false
	}
	deadline := time.After(60 * time.Second)
wait:
	for {
		select {
		case m := <-b.events:
			if collect(m) {
				break wait
			}
		case <-deadline:
			t.Fatal("report.html did not finish loading in 60 s")
		}
	}
	res, err = b.call(session, "Runtime.evaluate", map[string]any{"returnByValue": true, "expression": `JSON.stringify({
		figures: document.querySelectorAll("figure svg").length,
		svgs: [...document.querySelectorAll("svg")].map(s => {
			const r = s.getBoundingClientRect();
			return {id: (s.closest("figure") || {}).id || "", children: s.childElementCount, width: r.width, height: r.height};
		}),
		missing: [...document.querySelectorAll("figure.missing")].map(f => f.id),
		findings: document.querySelectorAll("#findings li").length,
		findingsBottom: document.querySelector("#findings").getBoundingClientRect().bottom,
		figureTop: document.querySelector("figure").getBoundingClientRect().top,
	})`})
	must(t, err)
	r, _ := res["result"].(map[string]any)
	measured, _ := r["value"].(string)
	must(t, json.Unmarshal([]byte(measured), &check))
	// Let late console messages arrive before the page is judged.
	for quiet := time.After(300 * time.Millisecond); ; {
		select {
		case m := <-b.events:
			collect(m)
			continue
		case <-quiet:
		}
		break
	}
	if shot != "" {
		metrics, err := b.call(session, "Page.getLayoutMetrics", nil)
		must(t, err)
		size, _ := metrics["cssContentSize"].(map[string]any)
		w, _ := size["width"].(float64)
		h, _ := size["height"].(float64)
		res, err = b.call(session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
			"clip": map[string]any{"x": 0, "y": 0, "width": w, "height": h, "scale": 1}})
		must(t, err)
		data, _ := res["data"].(string)
		png, err := base64.StdEncoding.DecodeString(data)
		must(t, err)
		if len(png) < 10000 {
			t.Errorf("screenshot is only %d bytes", len(png))
		}
		must(t, os.WriteFile(shot, png, 0o644))
		t.Logf("screenshot (%.0fx%.0f px): %s", w, h, shot)
	}
	return check
}

// localRef matches the files report.html links to.
var localRef = regexp.MustCompile(`(?:href|src)="([^"#:]+)"`)

// checkInBrowser opens dir's report.html in Chromium and checks it: no
// console error, every figure drawn with content and a size, every file
// it links to present, and as many inline figures as SVG files.
func checkInBrowser(t *testing.T, dir string) {
	t.Helper()
	b := startBrowser(t)
	reportDir := filepath.Join(dir, Subdir)
	html := filepath.Join(reportDir, "report.html")
	shot := filepath.Join(t.TempDir(), "report.png")
	if keep := os.Getenv("REPORT_SCREENSHOT_DIR"); keep != "" {
		shot = filepath.Join(keep, t.Name()+".png")
	}
	check := b.open(t, html, shot)
	for _, e := range check.Errors {
		t.Errorf("page error: %s", e)
	}
	files, _ := filepath.Glob(filepath.Join(reportDir, "*.svg"))
	if check.Figures == 0 || check.Figures != len(files) {
		t.Errorf("%d figures in the page, %d SVG files", check.Figures, len(files))
	}
	if check.Findings == 0 || check.FindingsBottom > check.FigureTop {
		t.Errorf("%d findings, ending at %.0f px, the first figure at %.0f px: want findings above the figures",
			check.Findings, check.FindingsBottom, check.FigureTop)
	}
	for _, s := range check.SVGs {
		if s.Children == 0 || s.Width < 100 || s.Height < 50 {
			t.Errorf("figure %s is empty or tiny: %d elements, %.0fx%.0f px", s.ID, s.Children, s.Width, s.Height)
		}
	}
	page := readFile(t, html)
	for _, m := range localRef.FindAllStringSubmatch(page, -1) {
		if _, err := os.Stat(filepath.Join(reportDir, m[1])); err != nil {
			t.Errorf("report.html links to %s: %v", m[1], err)
		}
	}
	t.Logf("%d figures drawn, %d noted as missing: %v", check.Figures, len(check.Missing), check.Missing)
}

// TestSyntheticInChromium renders every kind of figure, the monitor's
// included, from a synthetic results directory and opens it.
func TestSyntheticInChromium(t *testing.T) {
	chromiumPath(t)
	path := synth{failLast: true}.write(t)
	addMonitorFiles(t, path)
	must(t, Write(path))
	checkInBrowser(t, path)
}
