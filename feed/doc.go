// Package feed is the core of the vendor guardrail feed: it fetches the
// documents in which agent vendors say how their agents should be
// instructed, reduces them to structured text, and extracts the imperative
// rules they state as candidates for a human to review. A candidate becomes
// a vendor suggestion, and a suggestion becomes policy only through an
// approved proposal; nothing here decides anything.
//
// Everything a vendor writes is hostile data. Promises:
//
//   - Fetch speaks https only (plain http only to loopback addresses, for
//     local mirrors and tests), checks every redirect target the same way
//     before following it, never reads more than MaxBytes of a body, gives
//     up after Timeout, and replaces invalid UTF-8 with U+FFFD rather than
//     failing. Errors are sentinels (ErrInsecureURL, ErrTooLarge, …) or a
//     *StatusError, matched with errors.Is and errors.As.
//   - Normalise reduces HTML and Markdown to one block model (headings,
//     paragraphs, list items), dropping code, scripts, navigation, images,
//     hidden elements and link destinations. Block text is one line, in NFC,
//     without control, invisible or bidi characters. Text and ParseText
//     convert between blocks and the normalised text losslessly; the text's
//     SHA-256 is the document's hash.
//   - Extract is deterministic and reads only what a document says: the same
//     blocks give byte-identical candidates, at most MaxCandidates of them.
//     Every string in a Candidate is one line, free of control characters and
//     inert when rendered as markdown (internal/mdsafe's Line leaves it
//     unchanged), so a statement cannot open a heading, a list, a code block
//     or an HTML comment in a pull request body. Text such as "ignore previous
//     instructions" is at most a statement string: it changes no other field
//     and nothing outside this package's return values.
//   - Dedupe and Withdrawn compare statements by their normalised words, so
//     case, punctuation, markdown escapes and small wording changes do not
//     make a rule new, and a negation always does.
//
// The package imports only Bridle's lowest layers (schema, internal/mdsafe).
package feed
