package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"engram/bootstrap/config"
	"engram/test/testenv"
	"engram/test/wait"
)

// The README's examples are run, not just read: every curl command in a ```sh block of
// README.md is executed with the real curl, top to bottom, against one fresh server, and
// its answer is compared with the output printed under it. A changed response fails
// the test, so the README cannot drift from what the quickstart returns.
//
// How the README is written for it (docs/docs/DEVELOPING.md repeats this):
//   - Only ```sh blocks run, and in them only commands that start with `curl`; a sample
//     that cannot be reproduced on the embedded default (a failing embedder) goes in
//     another kind of block.
//   - The output is the comment right under the command: `# ` then, optionally, the
//     HTTP status (`# 422 {…}`), then the body; lines that start `#` and a space more
//     continue it. Without a status the answer must be 2xx, and so must a command with
//     no printed output.
//   - In the output, `…` stands for anything, `<…>` for one JSON string's worth, a
//     timestamp for any timestamp, a 26-character id (ULID, request id) for any such
//     id, and a decimal number for any number that starts with its digits (`0.54`
//     matches 0.5412): ids, times and the last digits of scores are tolerated, nothing
//     else. Continuation lines are joined without a space: wrap between JSON values.
//   - A command's `<job_id>`, `<trace_id>`, `<report_id>` or `<id from the history>` is filled from
//     the answers before it (readmePlaceholders).
//   - A read (GET, search, context) whose output does not match yet is retried for a
//     while: extraction and indexing run in the background, as the README says.
//
// To write or update an output, run the test with ENGRAM_TEST_README_ANSWERS=FILE: it
// goes on past a mismatch and writes every answer, by README line, to FILE.

const readmeAddr = "localhost:8080"

// readmeExample is one curl command of the README and what it prints.
type readmeExample struct {
	line    int    // of the command in README.md, 1-based
	command string // as a shell reads it (continuations and multi-line quotes kept)
	status  int    // printed before the output; 0: any 2xx
	output  string // printed under the command, continuation lines joined; "" when none
}

// parseReadme finds the examples of a README, in order.
func parseReadme(text string) []readmeExample {
	var (
		out      []readmeExample
		inSh     bool
		inFence  bool
		lines    = strings.Split(text, "\n")
		cur      *readmeExample
		inOutput bool
	)
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
		}
		cur, inOutput = nil, false
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "```") {
			if inFence {
				flush()
				inFence, inSh = false, false
			} else {
				inFence, inSh = true, strings.TrimSpace(line) == "```sh"
			}
			continue
		}
		if !inSh {
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "curl "):
			flush()
			start := i
			cmd := line
			for (strings.HasSuffix(strings.TrimRight(cmd, " "), `\`) || strings.Count(stripComment(cmd), "'")%2 == 1) && i+1 < len(lines) {
				i++
				cmd += "\n" + lines[i]
			}
			cur = &readmeExample{line: start + 1, command: stripComment(cmd)}
		case cur != nil && strings.HasPrefix(trimmed, "#"):
			body := strings.TrimPrefix(trimmed, "#")
			if !inOutput {
				out := strings.TrimSpace(body)
				if !startsOutput(out) {
					flush()
					continue
				}
				if m := statusPrefix.FindStringSubmatch(out); m != nil {
					cur.status, _ = strconv.Atoi(m[1])
					out = out[len(m[0]):]
				}
				cur.output, inOutput = out, true
				continue
			}
			if !strings.HasPrefix(body, "  ") { // a new comment, not a continuation
				flush()
				continue
			}
			cur.output += strings.TrimSpace(body)
		default:
			flush()
		}
	}
	flush()
	return out
}

var statusPrefix = regexp.MustCompile(`^([1-5][0-9]{2})(?: |$)`)

// startsOutput tells a printed answer from a comment about the next command.
func startsOutput(s string) bool {
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") || statusPrefix.MatchString(s)
}

// stripComment drops a trailing `# …` that is outside quotes.
func stripComment(cmd string) string {
	quote := rune(0)
	for i, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || cmd[i-1] == ' '):
			return strings.TrimRight(cmd[:i], " ")
		}
	}
	return cmd
}

var (
	readmeTimestamp = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})`)
	readmeDecimal   = regexp.MustCompile(`-?[0-9]+\.[0-9]+`)
	readmePlace     = regexp.MustCompile(`<[^<>"]*>`)
	readmeID        = regexp.MustCompile(`\b[0-9A-Z]{26}\b`) // ULIDs and request ids
	readmeToken     = regexp.MustCompile(`…|` + readmeTimestamp.String() + `|` + readmePlace.String() + `|` + readmeID.String() + `|` + readmeDecimal.String())
)

// outputPattern turns a printed output into the regular expression an answer must match.
func outputPattern(printed string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	last := 0
	for _, loc := range readmeToken.FindAllStringIndex(printed, -1) {
		b.WriteString(regexp.QuoteMeta(printed[last:loc[0]]))
		tok := printed[loc[0]:loc[1]]
		switch {
		case tok == "…":
			b.WriteString(`(?s:.*?)`)
		case readmeTimestamp.MatchString(tok):
			b.WriteString(readmeTimestamp.String())
		case strings.HasPrefix(tok, "<"):
			b.WriteString(`[^"]*`)
		case readmeID.MatchString(tok):
			b.WriteString(readmeID.String())
		default:
			b.WriteString(regexp.QuoteMeta(tok) + `[0-9]*(?:e-?[0-9]+)?`)
		}
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(printed[last:]))
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// readmePlaceholders fill a command's <…> from the answers before it, newest first.
var readmePlaceholders = map[string]func(answers []any) (string, bool){
	"<job_id>":    field("job_id"),
	"<trace_id>":  field("trace_id"),
	"<report_id>": field("report_id"),
	// the first event of the latest history: revert goes back to the memory as created
	"<id from the history>": func(answers []any) (string, bool) {
		for i := len(answers) - 1; i >= 0; i-- {
			m, _ := answers[i].(map[string]any)
			if events, ok := m["events"].([]any); ok && len(events) > 0 {
				e, _ := events[0].(map[string]any)
				id, ok := e["id"].(string)
				return id, ok
			}
		}
		return "", false
	},
}

func field(name string) func([]any) (string, bool) {
	return func(answers []any) (string, bool) {
		for i := len(answers) - 1; i >= 0; i-- {
			if m, ok := answers[i].(map[string]any); ok {
				if v, ok := m[name].(string); ok && v != "" {
					return v, true
				}
			}
		}
		return "", false
	}
}

// isRead says whether running a command again changes nothing that later ones see.
func isRead(cmd string) bool {
	if !strings.Contains(cmd, "-X ") {
		return true
	}
	return strings.Contains(cmd, "-X POST") && (strings.Contains(cmd, "/search") || strings.Contains(cmd, "/context "))
}

func TestREADME_outputMatching(t *testing.T) {
	cases := []struct {
		printed, answer string
		want            bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,…}`, `{"a":1,"b":2}`, true},
		{`{"score":0.54}`, `{"score":0.5412}`, true},
		{`{"score":0.54}`, `{"score":0.55}`, false},
		{`{"score":0.54}`, `{"score":0.5}`, false},
		{`{"n":4}`, `{"n":41}`, false},
		{`{"at":"2026-12-01T09:41:02Z"}`, `{"at":"2027-01-02T03:04:05.123456Z"}`, true},
		{`{"at":"2026-12-01T09:41:02Z"}`, `{"at":"yesterday"}`, false},
		{`{"user":"<sha256 of tenant and user>"}`, `{"user":"9f86d0"}`, true},
		{`{"user":"<sha256>","n":1}`, `{"user":"x","y":"z","n":1}`, false},
		{`{"d":"a (b) [c] * + ?"}`, `{"d":"a (b) [c] * + ?"}`, true},
		{`[{"k":"x"},…]`, `[{"k":"x"},{"k":"y"}]`, true},
		{`[{"k":"x"},…]`, `[{"k":"y"},{"k":"x"}]`, false},
		{`{"id":"01M8RXMVHXF5H1VFCTPXQMWZ5W"}`, `{"id":"01M8RXSFD7TGSQYY2F6YJNJJ3X"}`, true},
		{`{"id":"01M8RXMVHXF5H1VFCTPXQMWZ5W"}`, `{"id":"t1"}`, false},
	}
	for _, c := range cases {
		if got := outputPattern(c.printed).MatchString(c.answer); got != c.want {
			t.Errorf("%s against %s: %v, want %v", c.printed, c.answer, got, c.want)
		}
	}
}

func TestREADME_parse(t *testing.T) {
	readme := "text\n```sh\n# what it does\ncurl -s -X PUT localhost:8080/a \\\n  -d '{\"x\":\n  1}'   # trailing\n# 201 {\"a\":1,\n#  \"b\":2}\n# a comment\ncurl -s localhost:8080/b\n./engram keys list\n```\n```json\ncurl -s localhost:8080/never\n```\n"
	got := parseReadme(readme)
	want := []readmeExample{
		{line: 4, command: "curl -s -X PUT localhost:8080/a \\\n  -d '{\"x\":\n  1}'", status: 201, output: `{"a":1,"b":2}`},
		{line: 10, command: "curl -s localhost:8080/b"},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("parse:\n got %+v\nwant %+v", got, want)
	}
}

func TestREADME_examplesRunInOrder(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if testenv.Required() {
			t.Fatal("curl is not installed (test/services.sh installs it)")
		}
		t.Skip("curl is not installed")
	}
	text, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples := parseReadme(string(text))
	if len(examples) < 20 {
		t.Fatalf("found %d curl examples in README.md; the parser has lost them", len(examples))
	}
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(),
		// the README's flow waits for extraction and indexing; shorter waits, same code
		"LONG_TERM_MEMORY_DEBOUNCE_SEC=1", "MEMORY_INDEX_WORKER_INTERVAL_SEC=1", "ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC=1")
	base := strings.TrimPrefix(srv.Base, "http://")
	headers := filepath.Join(t.TempDir(), "headers")

	var (
		answers []any
		dump    *os.File
		fail    = t.Fatalf
	)
	if path := os.Getenv("ENGRAM_TEST_README_ANSWERS"); path != "" {
		if dump, err = os.Create(path); err != nil {
			t.Fatal(err)
		}
		defer dump.Close()
		fail = t.Errorf
	}
	for _, ex := range examples {
		cmd := strings.ReplaceAll(ex.command, readmeAddr, base)
		for _, ph := range readmePlace.FindAllString(cmd, -1) {
			fill, ok := readmePlaceholders[ph]
			if !ok {
				t.Fatalf("README.md:%d: the command uses %s, which this test cannot fill (readmePlaceholders)", ex.line, ph)
			}
			v, ok := fill(answers)
			if !ok {
				t.Fatalf("README.md:%d: no answer before it gives %s", ex.line, ph)
			}
			cmd = strings.ReplaceAll(cmd, ph, v)
		}
		// curl itself: what a reader pastes, plus where to put the status line
		cmd = strings.Replace(cmd, "curl ", shellQuote(curl)+" --max-time 30 -D "+shellQuote(headers)+" ", 1)

		var pattern *regexp.Regexp
		if ex.output != "" {
			pattern = outputPattern(ex.output)
		}
		// A read may show what the writes before it left only once the workers
		// caught up: it is tried again until it does (a write is run once).
		var (
			status        int
			body, problem string
		)
		wait.For(30*time.Second, func() bool {
			status, body = runCurl(t, ex, cmd, headers)
			problem = ""
			switch {
			case ex.status != 0 && status != ex.status:
				problem = fmt.Sprintf("status %d, the README prints %d", status, ex.status)
			case ex.status == 0 && (status < 200 || status > 299):
				problem = fmt.Sprintf("status %d, not 2xx", status)
			case pattern != nil && !pattern.MatchString(compact(body)):
				problem = "the answer is not what the README prints"
			}
			return problem == "" || !isRead(ex.command)
		})
		var v any
		if json.Unmarshal([]byte(body), &v) == nil {
			answers = append(answers, v)
		}
		if dump != nil {
			fmt.Fprintf(dump, "README.md:%d\n%s\n# %d %s\n\n", ex.line, ex.command, status, compact(body))
		}
		if problem != "" {
			fail("README.md:%d: %s\ncommand:\n%s\nREADME prints:\n%s\nanswer (%d):\n%s", ex.line, problem, ex.command, ex.output, status, compact(body))
		}
	}
}

func runCurl(t *testing.T, ex readmeExample, cmd, headers string) (int, string) {
	t.Helper()
	_ = os.Remove(headers)
	var stdout, stderr bytes.Buffer
	c := exec.Command("bash", "-c", cmd)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("README.md:%d: %v: %s\n%s", ex.line, err, stderr.String(), ex.command)
	}
	h, err := os.ReadFile(headers)
	if err != nil {
		t.Fatalf("README.md:%d: no response headers: %v", ex.line, err)
	}
	// the last status line: curl writes one per response (100 Continue included)
	status := 0
	for _, line := range strings.Split(string(h), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/") {
			status, _ = strconv.Atoi(f[1])
		}
	}
	return status, stdout.String()
}

// compact removes JSON's insignificant whitespace (an answer that is not JSON, such as
// a status code printed by -w, is only trimmed).
func compact(body string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(body)) == nil {
		return b.String()
	}
	return strings.TrimSpace(body)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Every setting of the typed configuration is in the README's configuration table.
func TestREADME_documentsEverySetting(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(text, []byte("\n## Configuration\n"))
	if i < 0 {
		t.Fatal(`README.md has no "## Configuration" section`)
	}
	table := string(text[i:])
	if j := strings.Index(table[1:], "\n## "); j >= 0 {
		table = table[:j+1]
	}
	for _, name := range envNames(reflect.TypeOf(config.Config{})) {
		if !strings.Contains(table, "`"+name+"`") {
			t.Errorf("README.md's configuration table does not name `%s`", name)
		}
	}
}

// envNames are the env tags of a configuration struct and the structs within it.
func envNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name := f.Tag.Get("env"); name != "" {
			names = append(names, name)
		}
		if f.Type.Kind() == reflect.Struct {
			names = append(names, envNames(f.Type)...)
		}
	}
	return names
}
