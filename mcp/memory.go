package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// memoryDeps is what the memory and patterns toolsets need.
type memoryDeps struct {
	// open returns the project's vector store and the embedder; nil when
	// memory is not configured, which disables both toolsets.
	open     func(project string) (memory.Store, memory.Embedder, error)
	red      *redact.Redactor
	examples memory.ExampleOptions // where pattern examples may be cloned from
}

// memoryToolset is the project's shared memory across sessions and agents.
func memoryToolset(d memoryDeps) Toolset {
	return Toolset{ID: ToolsetMemory, Enabled: configured(d.open != nil), Tools: []Tool{remember(d), recall(d), forget(d)}}
}

// patternsToolset searches and re-indexes the custom patterns' example code.
func patternsToolset(d memoryDeps) Toolset {
	return Toolset{ID: ToolsetPatterns, Enabled: configured(d.open != nil), Tools: []Tool{searchPatterns(d), refreshPattern(d)}}
}

// onceMemory opens the store and embedder on first use; nil when open is nil.
func onceMemory(open func() (memory.Store, memory.Embedder, error)) func() (memory.Store, memory.Embedder, error) {
	if open == nil {
		return nil
	}
	var (
		once sync.Once
		st   memory.Store
		emb  memory.Embedder
		err  error
	)
	return func() (memory.Store, memory.Embedder, error) {
		once.Do(func() { st, emb, err = open() })
		return st, emb, err
	}
}

// onceMemoryOf is onceMemory(open) for a server with one store, else each
// project's store from of, opened once on its first use; nil when both are.
func onceMemoryOf(open func() (memory.Store, memory.Embedder, error), of func(string) (memory.Store, memory.Embedder, error)) func(string) (memory.Store, memory.Embedder, error) {
	if of == nil {
		one := onceMemory(open)
		if one == nil {
			return nil
		}
		return func(string) (memory.Store, memory.Embedder, error) { return one() }
	}
	var (
		mu     sync.Mutex
		opened = map[string]func() (memory.Store, memory.Embedder, error){}
	)
	return func(project string) (memory.Store, memory.Embedder, error) {
		mu.Lock()
		o, ok := opened[project]
		if !ok {
			o = onceMemory(func() (memory.Store, memory.Embedder, error) { return of(project) })
			opened[project] = o
		}
		mu.Unlock()
		return o()
	}
}

func (d memoryDeps) store(ctx context.Context) (memory.Store, memory.Embedder, error) {
	if d.open == nil {
		return nil, nil, errors.New("memory is not configured for this server")
	}
	return d.open(callFrom(ctx).project)
}

func (d memoryDeps) memoryFor(ctx context.Context) (*memory.Memory, call, error) {
	c := callFrom(ctx)
	st, emb, err := d.store(ctx)
	if err != nil {
		return nil, c, err
	}
	return &memory.Memory{Store: st, Embedder: emb, Project: c.project, Redactor: d.red}, c, nil
}

type rememberInput struct {
	Text string   `json:"text" jsonschema:"what to remember: a decision, context, history or a note, in plain words"`
	Kind string   `json:"kind" jsonschema:"decision, context, history or note"`
	Tags []string `json:"tags,omitempty" jsonschema:"short lower-case tags, e.g. ledger, db"`
}

// MemoryView is a stored memory.
type MemoryView struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Text    string   `json:"text"`
	Tags    []string `json:"tags,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Created string   `json:"created"`
	Score   float64  `json:"score,omitempty"`
}

func memoryView(r memory.Record, score float64) MemoryView {
	return MemoryView{ID: r.ID, Kind: r.Payload["kind"], Text: r.Text, Tags: r.Tags, Agent: r.Payload["agent"],
		Created: r.Created.UTC().Format("2006-01-02T15:04:05Z"), Score: score}
}

var (
	kindEnum = enum("kind", memory.Kinds...)
	kRange   = between("k", 0, memory.MaxK)
)

func remember(d memoryDeps) Tool {
	return newTool(Tool{
		Name: "remember", Title: "Remember for later sessions",
		Description: "Store a decision, context, history or note in the project's shared memory, so that later sessions — yours or another agent's — can recall it.",
		Toolset:     ToolsetMemory, Permission: schema.PermMemoryWrite, AuditsItself: true,
	}, tweaks(kindEnum, limits(map[string]int{"text": memory.MaxMemoryText})), func(ctx context.Context, req *sdk.CallToolRequest, in rememberInput) (*sdk.CallToolResult, MemoryView, error) {
		m, c, err := d.memoryFor(ctx)
		if err != nil {
			return nil, MemoryView{}, err
		}
		r, err := m.Remember(ctx, memory.Entry{Text: in.Text, Kind: in.Kind, Tags: in.Tags, Agent: c.id.Agent, Session: c.session})
		if err != nil {
			return nil, MemoryView{}, err
		}
		c.audit(audit.Event{Kind: audit.KindWrite, Tool: "remember", ID: r.ID, Summary: "remembered a " + in.Kind})
		return nil, memoryView(r, 0), nil
	})
}

type recallInput struct {
	Query string   `json:"query" jsonschema:"what you are looking for"`
	K     int      `json:"k,omitempty" jsonschema:"how many memories, 1 to 50 (default 5)"`
	Kind  string   `json:"kind,omitempty" jsonschema:"only this kind"`
	Tags  []string `json:"tags,omitempty" jsonschema:"only memories with all of these tags"`
	Agent string   `json:"agent,omitempty" jsonschema:"only memories this agent stored"`
}

// RecallResult is recall's answer.
type RecallResult struct {
	Memories []MemoryView `json:"memories"`
}

func recall(d memoryDeps) Tool {
	return newTool(Tool{
		Name: "recall", Title: "Recall from memory",
		Description: "Search the project's shared memory (decisions, context, history, notes from every agent's sessions), best matches first.",
		Toolset:     ToolsetMemory, Permission: schema.PermMemoryRead, ReadOnly: true,
	}, tweaks(kindEnum, kRange, limits(map[string]int{"query": memory.MaxQuery})), func(ctx context.Context, req *sdk.CallToolRequest, in recallInput) (*sdk.CallToolResult, RecallResult, error) {
		m, _, err := d.memoryFor(ctx)
		if err != nil {
			return nil, RecallResult{}, err
		}
		hits, err := m.Recall(ctx, memory.RecallQuery{Text: in.Query, K: in.K, Kind: in.Kind, Tags: in.Tags, Agent: in.Agent})
		if err != nil {
			return nil, RecallResult{}, err
		}
		out := RecallResult{Memories: []MemoryView{}}
		for _, h := range hits {
			out.Memories = append(out.Memories, memoryView(h.Record, h.Score))
		}
		return nil, out, nil
	})
}

type forgetInput struct {
	ID string `json:"id" jsonschema:"the memory id, from recall"`
}

func forget(d memoryDeps) Tool {
	return newTool(Tool{
		Name: "forget", Title: "Forget a memory",
		Description: "Delete one memory of this project by id.",
		Toolset:     ToolsetMemory, Permission: schema.PermMemoryForget, Destructive: true, Idempotent: true, AuditsItself: true,
	}, limits(map[string]int{"id": 100}), func(ctx context.Context, req *sdk.CallToolRequest, in forgetInput) (*sdk.CallToolResult, any, error) {
		m, c, err := d.memoryFor(ctx)
		if err != nil {
			return nil, nil, err
		}
		if err := m.Forget(ctx, in.ID); err != nil {
			return nil, nil, err
		}
		c.audit(audit.Event{Kind: audit.KindWrite, Tool: "forget", ID: in.ID, Summary: "forgot a memory"})
		return text("forgot " + in.ID), nil, nil
	})
}

type searchPatternsInput struct {
	Query   string `json:"query" jsonschema:"the code you are looking for, in words or identifiers"`
	ArchTag string `json:"arch_tag,omitempty" jsonschema:"only examples of this architecture (a custom pattern's arch_tag)"`
	K       int    `json:"k,omitempty" jsonschema:"how many results, 1 to 50 (default 5)"`
}

// PatternHit is one example chunk.
type PatternHit struct {
	ReferenceTag string  `json:"reference_tag"`
	ArchTag      string  `json:"arch_tag"`
	SourceRepo   string  `json:"source_repo"`
	FilePath     string  `json:"file_path"`
	ChunkType    string  `json:"chunk_type"`
	StartLine    int     `json:"start_line"`
	EndLine      int     `json:"end_line"`
	Text         string  `json:"text"`
	Score        float64 `json:"score"`
}

// PatternHits are pattern-example search hits as search_pattern_examples
// (and the admin API) answers them; never nil.
func PatternHits(hits []memory.Hit) []PatternHit {
	out := []PatternHit{}
	for _, h := range hits {
		sl, _ := strconv.Atoi(h.Payload["start_line"])
		el, _ := strconv.Atoi(h.Payload["end_line"])
		out = append(out, PatternHit{ReferenceTag: h.Payload["reference_tag"], ArchTag: h.Payload["arch_tag"],
			SourceRepo: h.Payload["source_repo"], FilePath: h.Payload["file_path"], ChunkType: h.Payload["chunk_type"],
			StartLine: sl, EndLine: el, Text: h.Text, Score: h.Score})
	}
	return out
}

// PatternResult is search_pattern_examples' answer.
type PatternResult struct {
	Examples []PatternHit `json:"examples"`
}

func searchPatterns(d memoryDeps) Tool {
	return newTool(Tool{
		Name: "search_pattern_examples", Title: "Search pattern examples",
		Description: "Search real code from the example repositories of the project's custom architecture patterns, to see how the pattern is done here.",
		Toolset:     ToolsetPatterns, Permission: schema.PermMemoryRead, ReadOnly: true,
	}, tweaks(kRange, limits(map[string]int{"query": memory.MaxQuery, "arch_tag": 120})), func(ctx context.Context, req *sdk.CallToolRequest, in searchPatternsInput) (*sdk.CallToolResult, PatternResult, error) {
		st, emb, err := d.store(ctx)
		if err != nil {
			return nil, PatternResult{}, err
		}
		c := callFrom(ctx)
		if in.ArchTag != "" && c.snap != nil && !knownArchTag(c.snap.Document, in.ArchTag) {
			msg := fmt.Sprintf("no pattern has arch_tag %q", in.ArchTag)
			if sg := schema.Suggest(in.ArchTag, archTags(c.snap.Document)); sg != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sg)
			}
			return nil, PatternResult{}, errors.New(msg)
		}
		hits, err := memory.SearchPatterns(ctx, st, emb, in.Query, in.ArchTag, in.K, memory.Hybrid)
		if errors.Is(err, memory.ErrNoCollection) {
			return nil, PatternResult{}, errors.New("no pattern examples are indexed yet; a maintainer runs bridle patterns index")
		}
		if err != nil {
			return nil, PatternResult{}, err
		}
		if len(hits) == 0 {
			if n, err := st.Count(ctx, memory.PatternsCollection, memory.Filter{}); err == nil && n == 0 {
				return nil, PatternResult{}, errors.New("no pattern examples are indexed yet; a maintainer runs bridle patterns index")
			}
		}
		return nil, PatternResult{Examples: PatternHits(hits)}, nil
	})
}

func archTags(d schema.Document) []string {
	var out []string
	for _, p := range d.Patterns.Custom {
		for _, r := range p.ExampleRepos {
			out = append(out, r.ArchTag)
		}
		out = append(out, p.Name)
	}
	return out
}

func knownArchTag(d schema.Document, tag string) bool {
	for _, t := range archTags(d) {
		if t == tag {
			return true
		}
	}
	return false
}

type refreshInput struct {
	ReferenceTag string `json:"reference_tag" jsonschema:"the example to re-index, from the rules' patterns"`
}

func refreshPattern(d memoryDeps) Tool {
	return newTool(Tool{
		Name: "refresh_pattern_example", Title: "Re-index a pattern example",
		Description: "Re-index one example repository of a custom pattern (clone, chunk, embed), replacing its previous index at once. Sends progress notifications.",
		Toolset:     ToolsetPatterns, Permission: schema.PermMemoryWrite, Idempotent: true, OpenWorld: true, AuditsItself: true,
	}, limits(map[string]int{"reference_tag": 120}), func(ctx context.Context, req *sdk.CallToolRequest, in refreshInput) (*sdk.CallToolResult, memory.IndexStats, error) {
		c := callFrom(ctx)
		st, emb, err := d.store(ctx)
		if err != nil {
			return nil, memory.IndexStats{}, err
		}
		if c.snap == nil {
			return nil, memory.IndexStats{}, unavailableErr(c)
		}
		var tags []string
		for _, p := range c.snap.Document.Patterns.Custom {
			for _, ex := range p.ExampleRepos {
				tags = append(tags, ex.ReferenceTag)
				if ex.ReferenceTag != in.ReferenceTag {
					continue
				}
				token := req.Params.GetProgressToken()
				ix := &memory.Indexer{Store: st, Embedder: emb, Examples: d.examples, Redactor: d.red, Progress: func(stage string, done, total int) {
					if token == nil || req.Session == nil {
						return
					}
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
						Progress: float64(done), Total: float64(total), Message: stage})
				}}
				stats, err := ix.Index(ctx, p.Name, ex)
				if err != nil {
					return nil, stats, err
				}
				c.audit(audit.Event{Kind: audit.KindWrite, Tool: "refresh_pattern_example",
					ID: ex.ReferenceTag, Summary: fmt.Sprintf("re-indexed %s (files: %d, chunks: %d)", ex.ReferenceTag, stats.Files, stats.Chunks)})
				return nil, stats, nil
			}
		}
		msg := fmt.Sprintf("no example repository with reference_tag %q", in.ReferenceTag)
		if sg := schema.Suggest(in.ReferenceTag, tags); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		return nil, memory.IndexStats{}, errors.New(msg)
	})
}
