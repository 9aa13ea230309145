package bench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

var (
	codePkgs = []string{
		"auth",
		"billing",
		"storage",
		"reports",
		"network",
		"scheduler",
		"search",
		"analytics",
		"inventory",
		"payments",
		"mailer",
		"catalog",
		"accounts",
		"metrics",
		"shipping",
		"audit",
	}
	codeSubs = []string{"core", "api", "models", "handlers", "jobs", "cache", "views", "adapters", "rules", "io"}
	codeMods = []string{
		"service",
		"client",
		"utils",
		"parser",
		"store",
		"worker",
		"validator",
		"loader",
		"router",
		"builder",
		"policy",
		"mapper",
		"queue",
		"session",
		"format",
		"index",
	}
	codeVerbs = []string{
		"load",
		"save",
		"parse",
		"build",
		"render",
		"fetch",
		"merge",
		"check",
		"compute",
		"update",
		"resolve",
		"encode",
		"decode",
		"sync",
		"scan",
		"apply",
		"collect",
		"prune",
		"rank",
		"export",
	}
	codeAdjs = []string{
		"active",
		"cached",
		"pending",
		"remote",
		"local",
		"daily",
		"raw",
		"signed",
		"partial",
		"nested",
		"stale",
		"primary",
		"shared",
		"draft",
		"archived",
	}
	codeNouns = []string{
		"invoice",
		"user",
		"order",
		"token",
		"record",
		"report",
		"session",
		"config",
		"payload",
		"ledger",
		"profile",
		"batch",
		"schema",
		"ticket",
		"metric",
		"shipment",
		"account",
		"event",
		"quota",
		"digest",
	}
	codeArgs = []string{"data", "items", "config", "limit", "user_id", "payload", "options", "context", "rows", "key"}
)

// codeFunc is a generated function: its name, defining file and the files
// calling it.
type codeFunc struct {
	name    string
	file    string
	callers map[string]bool
}

type codeGen struct {
	r     *rand.Rand
	funcs []*codeFunc
	names map[string]bool
	paths map[string]bool
}

func (g *codeGen) funcName() string {
	for {
		n := pick(g.r, codeVerbs) + "_" + pick(g.r, codeAdjs) + "_" + pick(g.r, codeNouns)
		if g.names[n] {
			n = fmt.Sprintf("%s_%d", n, 2+g.r.IntN(98))
		}
		if !g.names[n] {
			g.names[n] = true
			return n
		}
	}
}

func (g *codeGen) path(dir, ext string) string {
	for {
		var p string
		switch dir {
		case "src":
			p = fmt.Sprintf("src/%s/%s/%s.%s", pick(g.r, codePkgs), pick(g.r, codeSubs), pick(g.r, codeMods), ext)
		case "tests":
			p = fmt.Sprintf("tests/%s/test_%s.%s", pick(g.r, codePkgs), pick(g.r, codeMods), ext)
		default:
			p = fmt.Sprintf("docs/%s/%s.%s", pick(g.r, codePkgs), pick(g.r, codeSubs), ext)
		}
		if g.paths[p] {
			p = strings.TrimSuffix(p, "."+ext) + fmt.Sprintf("_%d.%s", 2+g.r.IntN(998), ext)
		}
		if !g.paths[p] {
			g.paths[p] = true
			return p
		}
	}
}

func modName(path string) string {
	return strings.ReplaceAll(strings.TrimSuffix(path, ".py"), "/", ".")
}

// callees picks up to k functions defined in other files for file to call.
func (g *codeGen) callees(file string, k int) []*codeFunc {
	var out []*codeFunc
	seen := map[*codeFunc]bool{}
	for tries := 0; len(out) < k && tries < 4*k && len(g.funcs) > 0; tries++ {
		f := g.funcs[g.r.IntN(len(g.funcs))]
		if f.file == file || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// sourceFile writes one Python module defining 3-7 functions.
func (g *codeGen) sourceFile(test bool) (string, string) {
	dir := "src"
	if test {
		dir = "tests"
	}
	path := g.path(dir, "py")
	r := g.r
	nfn := 3 + r.IntN(5)
	type fnPlan struct {
		name  string
		calls []*codeFunc
	}
	plans := make([]fnPlan, nfn)
	imports := map[string][]string{}
	for i := range plans {
		if test {
			plans[i].name = "test_" + g.funcName()
		} else {
			plans[i].name = g.funcName()
		}
		plans[i].calls = g.callees(path, r.IntN(3)+btoi(test))
		for _, c := range plans[i].calls {
			imports[c.file] = append(imports[c.file], c.name)
			c.callers[path] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(
		&b,
		"\"\"\"%s: helpers to %s %s %s data.\"\"\"\n\n",
		modName(path),
		pick(r, codeVerbs),
		pick(r, codeAdjs),
		pick(r, codeNouns),
	)
	b.WriteString("import logging\n")
	for _, f := range sortedKeys(imports) {
		names := dedupe(imports[f])
		fmt.Fprintf(&b, "from %s import %s\n", modName(f), strings.Join(names, ", "))
	}
	b.WriteString("\nlog = logging.getLogger(__name__)\n")
	for _, p := range plans {
		a1, a2 := pick(r, codeArgs), pick(r, codeArgs)
		if a1 == a2 {
			a2 = "extra"
		}
		fmt.Fprintf(&b, "\n\ndef %s(%s, %s=None):\n", p.name, a1, a2)
		fmt.Fprintf(
			&b,
			"    \"\"\"%s the %s %s for the %s module.\"\"\"\n",
			capitalize(pick(r, codeVerbs)),
			pick(r, codeAdjs),
			pick(r, codeNouns),
			pick(r, codePkgs),
		)
		fmt.Fprintf(&b, "    result = []\n    if %s is None:\n        return result\n", a1)
		for _, c := range p.calls {
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "    value = %s(%s)\n    result.append(value)\n", c.name, a1)
			case 1:
				fmt.Fprintf(&b, "    for item in %s(%s, %s):\n        result.append(item)\n", c.name, a1, a2)
			default:
				fmt.Fprintf(&b, "    if %s(%s) is not None:\n        log.debug(\"%s ok\")\n", c.name, a2, p.name)
			}
		}
		fmt.Fprintf(&b, "    for entry in %s or []:\n        if entry:\n            result.append(str(entry).strip())\n", a1)
		fmt.Fprintf(&b, "    log.info(\"%s produced %%d entries\", len(result))\n    return result\n", p.name)
		if !test {
			g.funcs = append(g.funcs, &codeFunc{name: p.name, file: path, callers: map[string]bool{}})
		}
	}
	return path, b.String()
}

// docFile writes a Markdown page that mentions functions without calling them.
func (g *codeGen) docFile() (string, string) {
	path := g.path("docs", "md")
	r := g.r
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nThis page describes the %s component.\n\n", strings.TrimSuffix(path, ".md"), pick(r, codePkgs))
	for i := 0; i < 3+r.IntN(4); i++ {
		if len(g.funcs) > 0 {
			f := g.funcs[r.IntN(len(g.funcs))]
			fmt.Fprintf(
				&b,
				"- `%s` is used to %s %s %s data; see the module docstring.\n",
				f.name,
				pick(r, codeVerbs),
				pick(r, codeAdjs),
				pick(r, codeNouns),
			)
		} else {
			fmt.Fprintf(&b, "- The %s layer will %s %s data.\n", pick(r, codeSubs), pick(r, codeVerbs), pick(r, codeNouns))
		}
	}
	return path, b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func sampleFiles(r *rand.Rand, b *strings.Builder) {
	g := &codeGen{r: r, names: map[string]bool{}, paths: map[string]bool{}}
	for i := 0; i < 6; i++ {
		p, s := g.sourceFile(i == 5)
		b.WriteString("--- " + p + " ---\n" + s)
	}
	_, s := g.docFile()
	b.WriteString(s)
}

// genFiles builds a source tree and asks where a function with at least two
// calling files is defined and which files call it.
func genFiles(t *Task, r *rand.Rand) {
	// The byte budget starts from the sample's bytes per token and is
	// corrected as the tree grows (longer names and more imports change the
	// ratio) by counting every 16th file exactly.
	budget := byteBudget(KindFiles, t.Size, sampleFiles)
	var sampledBytes, sampledTokens int
	tok := tokenizer()
	g := &codeGen{r: r, names: map[string]bool{}, paths: map[string]bool{}}
	files := map[string]string{}
	var order []string
	total := 0
	for total < budget || len(order) < 6 || !hasTarget(g.funcs) {
		var p, s string
		nfuncs := len(g.funcs)
		switch k := r.IntN(10); {
		case k == 0 && len(order) > 2:
			p, s = g.docFile()
		case k <= 2 && len(order) > 2:
			p, s = g.sourceFile(true)
		default:
			p, s = g.sourceFile(false)
		}
		n := len(p) + len(s) + 9 // as Var.Text renders it
		if total+n > budget && total+n/2 > budget && len(order) >= 6 && hasTargetWithout(g.funcs[:nfuncs], p) {
			// Closer to the budget without this file: undo it.
			g.funcs = g.funcs[:nfuncs]
			for _, f := range g.funcs {
				delete(f.callers, p)
			}
			break
		}
		files[p] = s
		order = append(order, p)
		total += n
		if len(order)%16 == 1 {
			sampledBytes += n
			sampledTokens += tok.Count("--- " + p + " ---\n" + s)
			if sampledTokens >= 4000 {
				budget = int(float64(t.Size) * float64(sampledBytes) / float64(sampledTokens))
			}
		}
		if len(order) > 1<<20 {
			break
		}
	}
	var cands []*codeFunc
	for _, f := range g.funcs {
		if len(f.callers) >= 2 {
			cands = append(cands, f)
		}
	}
	target := cands[r.IntN(len(cands))]
	// Present files sorted by path, as a directory listing would.
	sort.Strings(order)
	d := rlmctx.NewDict(len(order))
	for _, p := range order {
		d.Set(p, files[p])
	}
	t.Vars = []Var{{Name: "files", Value: d}}
	callers := sortedKeys(target.callers)
	ans, _ := json.Marshal(map[string]any{"defined": target.file, "callers": callers})
	t.Query = fmt.Sprintf(
		"The variable `files` maps file paths to file contents (a Python project with docs). Where is the function `%s` defined, and which files call it? "+
			"A file calls it if its code contains a call %s(...); mentions in docs or comments are not calls. "+
			`Answer with JSON only: {"defined": "<path>", "callers": ["<path>", ...]}.`,
		target.name,
		target.name,
	)
	t.Gold = Gold{Format: GoldFiles, Answer: string(ans), Defined: target.file, Callers: callers}
}

// hasTargetWithout reports whether a function in fs has two calling files
// other than path.
func hasTargetWithout(fs []*codeFunc, path string) bool {
	for _, f := range fs {
		n := len(f.callers)
		if f.callers[path] {
			n--
		}
		if n >= 2 {
			return true
		}
	}
	return false
}

func hasTarget(fs []*codeFunc) bool {
	for _, f := range fs {
		if len(f.callers) >= 2 {
			return true
		}
	}
	return false
}
