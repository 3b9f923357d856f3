// Trace strings in Markdown tables (reports pasted into pull requests and issues). Inside a
// code span Markdown shows text literally (no HTML, and entities are NOT decoded), so names go
// into code spans with only the table's pipe escaped; outside one, '<' and '>' become entities
// so no tag comes alive. A name holding a backtick could end its code span early: it is written
// as escaped text instead. Control characters, bidi overrides and bad UTF-8 are neutralised first.
#pragma once
#include <string>
#include <string_view>

namespace ks {

// `name` as a table cell: a code span when possible.
std::string markdown_code_cell(std::string_view name, size_t max_bytes = 0);
// Text as a Markdown table cell, cut to `max_len` bytes (0: no cut) on a character boundary and
// never leaving a lone backslash that would escape the cell's closing pipe.
std::string markdown_cell(std::string_view raw, size_t max_len);
// Plain text as a table cell or paragraph text: entities for < > and an escaped pipe.
std::string markdown_text(std::string_view text, size_t max_bytes = 0);

}  // namespace ks
