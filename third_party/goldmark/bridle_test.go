package goldmark_test

// Bridle's test of its patch (third_party/README.md in Bridle): every
// regular expression and table the patch compiles on first use instead of at
// init still does its work. The expected HTML is upstream v1.7.17's output
// for the same input, and this test passes on upstream too.

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// patched reaches each patched variable: the table delimiters (extension),
// the task list marker, linkify's URL and www patterns, util's e-mail domain
// pattern (linkify's and autolinks' addresses), the parser's raw HTML open
// and close tags, HTML blocks of all seven kinds, and Unicode case folding
// (link labels: ẞ matches SS, Straße matches STRASSE).
const patched = `| left | right | center | none |
|:-----|------:|:------:|------|
| a    | b     | c      | d    |

- [x] done
- [ ] open

~~struck~~ and www.example.com/path and https://example.com:8080/a?b=c and mail@example.org

Inline <span class="x">raw</span> and <a href='y'/> and </b > tags.

<script>
x < 1
</script>

<!-- a comment -->

<?php echo 1; ?>

<!DOCTYPE html>

<![CDATA[ data ]]>

<div>
block
</div>

<custom-tag attr="v">

Autolink <me@mail.example.com> and [ẞ] and [Straße].

[SS]: /ss
[STRASSE]: /strasse
`

const want = `<table>
<thead>
<tr>
<th style="text-align:left">left</th>
<th style="text-align:right">right</th>
<th style="text-align:center">center</th>
<th>none</th>
</tr>
</thead>
<tbody>
<tr>
<td style="text-align:left">a</td>
<td style="text-align:right">b</td>
<td style="text-align:center">c</td>
<td>d</td>
</tr>
</tbody>
</table>
<ul>
<li><input checked="" disabled="" type="checkbox"> done</li>
<li><input disabled="" type="checkbox"> open</li>
</ul>
<p><del>struck</del> and <a href="http://www.example.com/path">www.example.com/path</a> and <a href="https://example.com:8080/a?b=c">https://example.com:8080/a?b=c</a> and <a href="mailto:mail@example.org">mail@example.org</a></p>
<p>Inline <span class="x">raw</span> and <a href='y'/> and </b > tags.</p>
<script>
x < 1
</script>
<!-- a comment -->
<?php echo 1; ?>
<!DOCTYPE html>
<![CDATA[ data ]]>
<div>
block
</div>
<custom-tag attr="v">
<p>Autolink <a href="mailto:me@mail.example.com">me@mail.example.com</a> and <a href="/ss">ẞ</a> and <a href="/strasse">Straße</a>.</p>
`

func TestPatchedInitWorkStillWorks(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	for i := 0; i < 2; i++ { // the first use compiles, the second reuses
		var b bytes.Buffer
		if err := md.Convert([]byte(patched), &b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != want {
			t.Fatalf("run %d: got\n%s\nwant\n%s", i, got, want)
		}
	}
}
