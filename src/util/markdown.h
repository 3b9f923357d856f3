// Trace strings in Markdown (reports pasted into pull requests and issues) must render as inert
// text in GitHub-flavoured Markdown: no link, image, autolink, mention, HTML tag or table break.
// Names go into code spans whose fence is longer than any backtick run in the name (inside one
// nothing is interpreted); other text has Markdown syntax and would-be autolinks escaped.
// Control characters, bidi overrides, invisible characters and bad UTF-8 are neutralised first.
// tests/browser/markdown.mjs renders the reports through cmark-gfm and finds no <a> or <img>.
#pragma once
#include <string>
#include <string_view>

namespace ks {

// `name` as a table cell: a code span when possible.
std::string markdown_code_cell(std::string_view name, size_t max_bytes = 0);
// Text as a Markdown table cell, cut to `max_len` bytes of text (0: no cut) on a character
// boundary before it is escaped.
std::string markdown_cell(std::string_view raw, size_t max_len);
// Plain text as a table cell or paragraph text: Markdown syntax and autolinks escaped.
std::string markdown_text(std::string_view text, size_t max_bytes = 0);

}  // namespace ks
