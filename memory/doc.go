// Package memory is Bridle's shared vector memory: session memory (what
// agents decided and learned) and pattern-example search (code from the
// example repositories of the document's custom patterns), in separate
// collections of one store.
//
// Promises:
//   - Embedders: an offline default (Hashing) that needs no model or
//     network and is deterministic, and an OpenAI-compatible client. Each
//     collection records its model and dimension; a mismatch is an error that
//     says to re-index, never a silent mix.
//   - Stores: an embedded SQLite file (WAL, FTS5) that several bridle mcp
//     processes share without losing writes, and Qdrant. One shared test
//     suite runs against both (Qdrant through a named fake gRPC server).
//   - Search is hybrid: vector similarity fused with full-text keyword
//     scores (reciprocal rank fusion). On SQLite both rankings run on
//     in-memory indexes of the collection's live records kept in step with
//     the file (vectors: 1-bit codes, then int8; keywords: BM25 with FTS5's
//     formula over the stems FTS5 holds), so a hybrid search at 100,000
//     records takes milliseconds. Pattern-search queries expand through
//     a thesaurus generated from WordNet and a short programming table
//     (thesaurus.txt, internal/genthesaurus), so the words people use find
//     the words code uses. Pattern search ranks files: a file (with its
//     Go test file) scores its best chunk and a share of its other
//     candidates, raised when the question names its path (byFile), and a
//     result holds one chunk of each file before a second of any.
//   - With an embedding model, pattern examples are also kept with the
//     offline embedder's vectors, and pattern search fuses the model's
//     ranking with the offline search; a model whose vectors tell nothing
//     apart or agree with nothing the offline search finds is left out, so
//     a model never ranks worse than the offline path
//     (TestModelNeverRanksWorse).
//   - Re-indexing a reference tag replaces its chunks atomically: searches
//     see the old set until the new one is complete, and a crash midway
//     leaves the old set intact.
//   - Indexing treats the rules as hostile (see ExampleOptions): the
//     examples token goes only to its hosts over https, local examples stay
//     inside a root, each example is capped (Limits), and chunks are
//     streamed to the store in batches, so memory does not grow with the
//     example.
//   - What agents store is masked (Memory.Redactor) before it is written.
//   - One store per project whichever way it is served: OpenProject is
//     what the sidecar, the CLI and the gateway open for a project
//     (DATA/projects/ID/memory.db, or Qdrant collections prefixed p_ID_),
//     seeded on its first open from the layouts used before.
package memory
