package bootstrap

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"engram/bootstrap/config"
)

// The "Modules" table of docs/DEVELOPING.md is the module graph of a process
// with every role: one row per fx module, and in its "needs" column exactly the
// modules whose types its constructors take. A module added, removed or rewired
// without the table fails here.
func TestModules_developingTableIsTheModuleGraph(t *testing.T) {
	t.Parallel()
	table := readModuleTable(t, "../docs/DEVELOPING.md")
	graph := moduleGraph(t)

	if got, want := sortedKeys(table), sortedKeys(graph); !slices.Equal(got, want) {
		t.Fatalf("modules in docs/DEVELOPING.md %v; the app has %v", got, want)
	}
	for name, needs := range graph {
		if got := table[name]; !slices.Equal(got, needs) {
			t.Errorf("module %s needs %v; docs/DEVELOPING.md says %v", name, needs, got)
		}
	}
}

// moduleGraph is each module of a process with every role, with the other
// modules that provide what its constructors take (fx's own types and the
// configuration excepted). Value groups are plug-in points and count for
// neither side.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	cfg, err := config.Load("", []string{"ENGRAM_DATA_DIR=" + t.TempDir(), "ENGRAM_ROLES=api,worker,indexer,scheduler",
		"ENGRAM_HTTP_ADDR=" + freeAddr(t), "ENGRAM_METRICS_ADDR=" + freeAddr(t), "ENGRAM_LOG_LEVEL=error"})
	if err != nil {
		t.Fatal(err)
	}
	provided := &providedTypes{module: map[string]string{}}
	var dot fx.DotGraph
	app := fx.New(appOptions(cfg), fx.WithLogger(func() fxevent.Logger { return provided }),
		fx.Invoke(func(g fx.DotGraph) { dot = g }))
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	// A constructor in fx's graph is the provider event with the same results; of
	// several with the same (a value group's contributors), the graph and the
	// events both list them in the order they were provided.
	byOutputs := map[string][]provider{}
	for _, p := range provided.order {
		key := strings.Join(p.outputs, ",")
		byOutputs[key] = append(byOutputs[key], p)
	}
	graph := map[string][]string{}
	for _, m := range provided.module {
		if m != "" {
			graph[m] = nil
		}
	}
	for _, c := range parseConstructors(string(dot)) {
		key := strings.Join(c.results, ",")
		if len(byOutputs[key]) == 0 {
			continue // fx's own (its event logger)
		}
		ev := byOutputs[key][0]
		byOutputs[key] = byOutputs[key][1:]
		owner := ev.module
		if owner == "" {
			continue // fx's own
		}
		for _, p := range c.params {
			if from := provided.module[p]; from != "" && from != owner && !slices.Contains(graph[owner], from) {
				graph[owner] = append(graph[owner], from)
			}
		}
	}
	for m := range graph {
		sort.Strings(graph[m])
	}
	return graph
}

// providedTypes records the providers in order, and which module provides each
// type (types provided at the root map to ""); a value group has many
// providers, so it maps to none.
type providedTypes struct {
	order  []provider
	module map[string]string
}

type provider struct {
	module  string
	outputs []string
}

func (p *providedTypes) LogEvent(e fxevent.Event) {
	var module string
	var outputs []string
	switch ev := e.(type) {
	case *fxevent.Provided:
		module, outputs = ev.ModuleName, ev.OutputTypeNames
	case *fxevent.Supplied:
		module, outputs = ev.ModuleName, []string{ev.TypeName}
	default:
		return
	}
	pr := provider{module: module}
	for _, name := range outputs {
		name = normaliseType(name)
		pr.outputs = append(pr.outputs, name)
		if !strings.Contains(name, "[group=") {
			p.module[name] = module
		}
	}
	sort.Strings(pr.outputs)
	p.order = append(p.order, pr)
}

// normaliseType writes a type the way fx's events and its DOT graph both can:
// `T[name="x"]` and `T[name=x]` are one type, and a value group's member
// (`T[group=g]3` in the graph) is the group.
func normaliseType(s string) string {
	s = strings.NewReplacer(`"`, "", " ", "").Replace(s)
	if i := strings.LastIndex(s, "]"); strings.Contains(s, "[group=") && i >= 0 {
		s = s[:i+1]
	}
	return s
}

type dotConstructor struct{ results, params []string }

func (c *dotConstructor) sortResults() { sort.Strings(c.results) }

var (
	dotCluster = regexp.MustCompile(`^\s*subgraph cluster_(\d+) \{`)
	dotResult  = regexp.MustCompile(`^\s*"([^"]+)" \[label=`)
	dotParam   = regexp.MustCompile(`^\s*constructor_(\d+) -> "([^"]+)"`)
)

// parseConstructors reads fx's DOT graph: each constructor's cluster lists its
// results, and its edges point to its parameters.
func parseConstructors(dot string) []*dotConstructor {
	byCluster := map[string]*dotConstructor{}
	var out []*dotConstructor
	cluster := ""
	sc := bufio.NewScanner(strings.NewReader(dot))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case dotCluster.MatchString(line):
			cluster = dotCluster.FindStringSubmatch(line)[1]
			byCluster[cluster] = &dotConstructor{}
			out = append(out, byCluster[cluster])
		case strings.TrimSpace(line) == "}":
			cluster = ""
		case cluster != "" && dotResult.MatchString(line):
			byCluster[cluster].results = append(byCluster[cluster].results, normaliseType(dotResult.FindStringSubmatch(line)[1]))
		case dotParam.MatchString(line):
			m := dotParam.FindStringSubmatch(line)
			if c := byCluster[m[1]]; c != nil {
				c.params = append(c.params, normaliseType(m[2]))
			}
		}
	}
	for _, c := range out {
		c.sortResults()
	}
	return out
}

// readModuleTable reads the rows of the table under "## Modules": the module's
// name in backquotes in the first column, the modules it needs (in backquotes,
// "—" for none) in the third.
func readModuleTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "\n## Modules\n")
	if !ok {
		t.Fatalf("%s has no \"## Modules\" section", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	quoted := regexp.MustCompile("`([^`]+)`")
	table := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := quoted.FindStringSubmatch(cells[1])[1]
		var needs []string
		for _, m := range quoted.FindAllStringSubmatch(cells[3], -1) {
			needs = append(needs, m[1])
		}
		sort.Strings(needs)
		table[name] = needs
	}
	return table
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
