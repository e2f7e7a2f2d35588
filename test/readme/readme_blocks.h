// Reads README.md's fenced SQL blocks for the README layer of the test command (readme_test.cpp):
// which blocks there are, what each needs (its fence tags), its statements as psql would send
// them, and the results the README shows for them. No PostgreSQL or libpqxx here, so the unit
// layer tests the parsing on its own (test/unit/readme_blocks_test.cpp).
//
// The conventions (documented in README.md, "Contributing"):
//   ```sql               runs on every server: with id_gen preloaded and without
//   ```sql preload       only where shared_preload_libraries has id_gen
//   ```sql nopreload     only where it has not
//   ```sql pg17+         only on PostgreSQL 17 and later (pg16-: 16 and earlier; pg17: 17 only)
//   ```sql citus         needs Citus: the Citus layer runs it on its coordinator (test/citus), the
//                        README layer reports it skipped
//   ```sql fragment      not run: placeholders, or a step that cannot run in the README's sequence
//   ```sql schema        also run, in order with the other such blocks, in a database where id_gen
//                        is installed in a schema of its own (id_gen, on the database's search_path)
// After a statement's ';', on the same line or on the lines directly below it:
//   -- → a | b           the result, one such line per row, columns joined by " | ", NULL as NULL
//   -- → ERROR 22P02     the statement fails with that SQLSTATE (": message" adds the message)
//   -- e.g. 01J9...      an illustration of a random result: checked for its shape only
// Any other comment is prose.
#pragma once

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace idgen::readme {

struct Expectation {
    enum class Kind { None, Rows, Error, Shape };
    Kind kind = Kind::None;
    std::vector<std::string> rows;  // Rows: each row as "col | col"
    std::string sqlstate;           // Error
    std::string message;            // Error: the primary message, if the README gives it
    std::string example;            // Shape
};

struct Statement {
    std::string sql;  // as psql sends it: from its first token to its ';'
    int line = 0;     // line of its first token in README.md
    Expectation expect;
};

struct Block {
    std::string file;               // the page, relative to the repository (set by the caller)
    int line = 0;                   // line of the opening fence
    std::string heading;            // the nearest heading above it
    std::vector<std::string> tags;  // the fence's words after "sql"
    bool preload = false, nopreload = false, citus = false, fragment = false, schema = false;
    int min_major = 0;  // the server versions it runs on, from pgNN, pgNN+, pgNN- tags
    int max_major = 1000;
    std::vector<Statement> statements;
    std::string error;  // a convention broken: the block fails with this
};

inline const std::string kArrow = "\xE2\x86\x92";  // →

inline std::string trim(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

inline bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// The text of a "--" comment without the dashes, trimmed.
inline std::string comment_body(const std::string& comment) { return trim(comment.substr(2)); }

inline bool is_arrow_comment(const std::string& comment) { return starts_with(comment_body(comment), kArrow); }

// Adds the expectation written in `comment` ("-- → ..." or "-- e.g. ...") to `e`; a prose comment
// adds nothing. Returns an error message, or "".
inline std::string add_expectation(Expectation& e, const std::string& comment) {
    const std::string body = comment_body(comment);
    if (starts_with(body, kArrow)) {
        const std::string v = trim(body.substr(kArrow.size()));
        if (starts_with(v, "ERROR")) {
            if (e.kind != Expectation::Kind::None) return "an expected error must be the only expected result";
            std::string rest = trim(v.substr(5));
            std::size_t colon = rest.find(':');
            std::string state = trim(rest.substr(0, colon));
            bool ok = state.size() == 5;
            for (char c : state)
                ok = ok && (std::isdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c)));
            if (!ok) return "\"-- " + kArrow + " ERROR\" needs a SQLSTATE of 5 characters: " + body;
            e.kind = Expectation::Kind::Error;
            e.sqlstate = state;
            if (colon != std::string::npos) e.message = trim(rest.substr(colon + 1));
            return "";
        }
        if (e.kind == Expectation::Kind::Error || e.kind == Expectation::Kind::Shape)
            return "an expected error or shape must be the only expected result";
        e.kind = Expectation::Kind::Rows;
        e.rows.push_back(v);
        return "";
    }
    if (starts_with(body, "e.g. ")) {
        if (e.kind != Expectation::Kind::None) return "\"-- e.g.\" cannot be combined with another expected result";
        e.kind = Expectation::Kind::Shape;
        e.example = trim(body.substr(5));
        return "";
    }
    return "";
}

inline bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
           (static_cast<unsigned char>(c) & 0x80);
}

// Splits a block's text into statements the way psql does: a ';' outside quotes, comments and
// parentheses ends one. `first_line` is the README line of the block's first line. Returns an
// error message or "".
inline std::string split_statements(const std::string& text, int first_line, std::vector<Statement>& out) {
    std::vector<std::string> lines;
    {
        std::size_t p = 0;
        while (p <= text.size()) {
            std::size_t nl = text.find('\n', p);
            if (nl == std::string::npos) nl = text.size();
            lines.push_back(text.substr(p, nl - p));
            p = nl + 1;
        }
        if (!lines.empty() && lines.back().empty()) lines.pop_back();
    }
    auto where = [&](std::size_t li) { return "line " + std::to_string(first_line + static_cast<int>(li)) + ": "; };

    enum class In { Code, Single, Escaped, Double, Dollar, Block };
    In in = In::Code;
    std::string dollar_tag;
    int block_depth = 0, paren = 0;
    Statement cur;
    bool started = false;

    for (std::size_t li = 0; li < lines.size(); ++li) {
        const std::string& l = lines[li];
        if (in == In::Code && !started && starts_with(trim(l), "\\"))
            return where(li) + "a psql meta-command; README blocks hold SQL only";
        std::size_t i = 0;
        while (i < l.size()) {
            char c = l[i];
            switch (in) {
                case In::Single:
                case In::Escaped:
                    if (in == In::Escaped && c == '\\' && i + 1 < l.size()) {
                        cur.sql += l.substr(i, 2);
                        i += 2;
                        continue;
                    }
                    if (c == '\'') {
                        if (i + 1 < l.size() && l[i + 1] == '\'') {
                            cur.sql += "''";
                            i += 2;
                            continue;
                        }
                        in = In::Code;
                    }
                    cur.sql += c;
                    ++i;
                    continue;
                case In::Double:
                    if (c == '"') in = In::Code;  // "" inside an identifier: leaves and re-enters
                    cur.sql += c;
                    ++i;
                    continue;
                case In::Dollar:
                    if (c == '$' && l.compare(i, dollar_tag.size(), dollar_tag) == 0) {
                        cur.sql += dollar_tag;
                        i += dollar_tag.size();
                        in = In::Code;
                        continue;
                    }
                    cur.sql += c;
                    ++i;
                    continue;
                case In::Block:
                    if (c == '*' && i + 1 < l.size() && l[i + 1] == '/') {
                        cur.sql += "*/";
                        i += 2;
                        if (--block_depth == 0) in = In::Code;
                        continue;
                    }
                    if (c == '/' && i + 1 < l.size() && l[i + 1] == '*') {
                        cur.sql += "/*";
                        i += 2;
                        ++block_depth;
                        continue;
                    }
                    cur.sql += c;
                    ++i;
                    continue;
                case In::Code: break;
            }
            // In code.
            if (c == '-' && i + 1 < l.size() && l[i + 1] == '-') {
                const std::string comment = l.substr(i);
                if (is_arrow_comment(comment))
                    return where(li) + "\"-- " + kArrow +
                           "\" must follow a statement's ';' (on its line or the lines below)";
                if (starts_with(comment_body(comment), "e.g. "))
                    return where(li) + "\"-- e.g.\" must follow a statement's ';' on its line";
                if (started) cur.sql += comment;
                break;  // the rest of the line is the comment
            }
            if (std::isspace(static_cast<unsigned char>(c)) && !started) {
                ++i;
                continue;
            }
            if (!started) {
                started = true;
                cur = Statement{};
                cur.line = first_line + static_cast<int>(li);
            }
            if (c == '/' && i + 1 < l.size() && l[i + 1] == '*') {
                in = In::Block;
                block_depth = 1;
                cur.sql += "/*";
                i += 2;
                continue;
            }
            if (c == '\'') {
                bool e = i > 0 && (l[i - 1] == 'E' || l[i - 1] == 'e') && (i < 2 || !ident_char(l[i - 2]));
                in = e ? In::Escaped : In::Single;
                cur.sql += c;
                ++i;
                continue;
            }
            if (c == '"') {
                in = In::Double;
                cur.sql += c;
                ++i;
                continue;
            }
            if (c == '$' && !(i > 0 && ident_char(l[i - 1]))) {
                std::size_t j = i + 1;
                if (j < l.size() && !std::isdigit(static_cast<unsigned char>(l[j]))) {
                    while (j < l.size() && ident_char(l[j]) && l[j] != '$') ++j;
                    if (j < l.size() && l[j] == '$') {
                        dollar_tag = l.substr(i, j - i + 1);
                        in = In::Dollar;
                        cur.sql += dollar_tag;
                        i = j + 1;
                        continue;
                    }
                }
            }
            if (c == '(') ++paren;
            if (c == ')' && paren > 0) --paren;
            cur.sql += c;
            ++i;
            if (c != ';' || paren > 0) continue;

            // The statement ends here; what follows on the line, and any "-- →" lines below it, is
            // its expected result.
            std::string rest = trim(l.substr(i));
            if (!rest.empty()) {
                if (!starts_with(rest, "--"))
                    return where(li) + "a second statement on the line of a ';'; start it on its own line";
                if (std::string err = add_expectation(cur.expect, rest); !err.empty()) return where(li) + err;
            }
            while (li + 1 < lines.size() && starts_with(trim(lines[li + 1]), "--") &&
                   is_arrow_comment(trim(lines[li + 1]))) {
                ++li;
                if (std::string err = add_expectation(cur.expect, trim(lines[li])); !err.empty())
                    return where(li) + err;
            }
            out.push_back(cur);
            started = false;
            cur = Statement{};
            paren = 0;
            i = l.size();
        }
        if (started) cur.sql += '\n';
    }
    if (in != In::Code) return "the block ends inside a quoted string, identifier or comment";
    if (started)
        return where(static_cast<std::size_t>(cur.line - first_line)) +
               "a statement without ';' at the end of the block";
    return "";
}

// Reads the tags of a fence's info string ("sql preload" -> {"preload"}) into `b`.
inline std::string apply_tags(Block& b) {
    for (const std::string& t : b.tags) {
        if (t == "preload")
            b.preload = true;
        else if (t == "nopreload")
            b.nopreload = true;
        else if (t == "citus")
            b.citus = true;
        else if (t == "fragment")
            b.fragment = true;
        else if (t == "schema")
            b.schema = true;
        else if (t.size() >= 3 && starts_with(t, "pg") && std::isdigit(static_cast<unsigned char>(t[2]))) {
            // pgNN (that major), pgNN+ (and later), pgNN- (and earlier)
            const std::size_t end = t.find_first_not_of("0123456789", 2);
            const std::string suffix = end == std::string::npos ? "" : t.substr(end);
            if (suffix != "" && suffix != "+" && suffix != "-") return "unknown fence tag \"" + t + "\"";
            const int major = std::stoi(t.substr(2, end == std::string::npos ? std::string::npos : end - 2));
            if (suffix != "-") b.min_major = std::max(b.min_major, major);
            if (suffix != "+") b.max_major = std::min(b.max_major, major);
        } else {
            return "unknown fence tag \"" + t +
                   "\" (known: preload, nopreload, pgNN, pgNN+, pgNN-, citus, fragment, schema)";
        }
    }
    if (b.preload && b.nopreload) return "a block cannot need both preload and nopreload";
    if (b.schema && b.citus) return "a citus block does not run in the README layer's schema database";
    if (b.min_major > b.max_major) return "the block's pg tags leave no server version";
    if (b.fragment && b.tags.size() > 1) return "a fragment is never run: it takes no other tag";
    return "";
}

// Whether a (trimmed) line opens or closes a fenced block: ``` or ~~~; a backtick fence's info
// string has no backtick (CommonMark), so a line starting with inline code such as ```` ```sql ````
// is not a fence.
inline bool is_fence(const std::string& t) {
    if (starts_with(t, "~~~")) return true;
    if (!starts_with(t, "```")) return false;
    return t.find('`', t.find_first_not_of('`')) == std::string::npos;
}

// Every ```sql block of a Markdown text, in order.
inline std::vector<Block> parse_readme(const std::string& md) {
    std::vector<Block> blocks;
    std::string heading;
    std::size_t p = 0;
    int line = 0;
    bool in_fence = false, in_sql = false;
    std::string fence, body;
    Block cur;
    int body_line = 0;
    while (p < md.size()) {
        std::size_t nl = md.find('\n', p);
        if (nl == std::string::npos) nl = md.size();
        std::string l = md.substr(p, nl - p);
        p = nl + 1;
        ++line;
        if (!in_fence) {
            std::string t = trim(l);
            if (is_fence(t)) {
                in_fence = true;
                fence = t.substr(0, 3);
                std::string info = trim(t.substr(3));
                std::vector<std::string> words;
                std::size_t q = 0;
                while (q < info.size()) {
                    std::size_t s = info.find_first_not_of(" \t", q);
                    if (s == std::string::npos) break;
                    std::size_t e = info.find_first_of(" \t", s);
                    if (e == std::string::npos) e = info.size();
                    words.push_back(info.substr(s, e - s));
                    q = e;
                }
                in_sql = !words.empty() && words[0] == "sql";
                if (in_sql) {
                    cur = Block{};
                    cur.line = line;
                    cur.heading = heading;
                    cur.tags.assign(words.begin() + 1, words.end());
                    body.clear();
                    body_line = line + 1;
                }
            } else if (starts_with(l, "#")) {
                std::size_t h = l.find_first_not_of('#');
                heading = h == std::string::npos ? "" : trim(l.substr(h));
            }
            continue;
        }
        if (starts_with(trim(l), fence)) {
            in_fence = false;
            if (in_sql) {
                cur.error = apply_tags(cur);
                if (cur.error.empty() && !cur.fragment) cur.error = split_statements(body, body_line, cur.statements);
                if (cur.error.empty() && !cur.fragment && cur.statements.empty())
                    cur.error = "a block without a statement";
                blocks.push_back(cur);
            }
            continue;
        }
        if (in_sql) body += l + "\n";
    }
    if (in_fence && in_sql) {
        cur.error = "the block's fence is never closed";
        blocks.push_back(cur);
    }
    return blocks;
}

// GitHub's anchor (slug) for a heading: its text as shown (inline-code backticks, emphasis
// stars and link brackets are markup, not text), lower case; letters, digits, '_', '-' and spaces
// kept (a space becomes '-', runs are not merged), every other ASCII character dropped. Of the
// non-ASCII characters, punctuation and symbols (U+0080 to U+00BF, U+2000 to U+2BFF: dashes,
// quotes, ellipses, arrows) are dropped, others (letters such as 'é') kept as they are.
inline std::string anchor_of(const std::string& heading) {
    std::string a;
    for (std::size_t i = 0; i < heading.size();) {
        const auto u = static_cast<unsigned char>(heading[i]);
        if (u < 0x80) {
            if (std::isalnum(u) || u == '_' || u == '-')
                a += static_cast<char>(std::tolower(u));
            else if (u == ' ')
                a += '-';
            ++i;
            continue;
        }
        std::size_t n = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 1;
        if (i + n > heading.size()) n = heading.size() - i;
        unsigned cp = 0;
        if (n == 2) cp = ((u & 0x1Fu) << 6) | (static_cast<unsigned char>(heading[i + 1]) & 0x3Fu);
        if (n == 3)
            cp = ((u & 0x0Fu) << 12) | ((static_cast<unsigned char>(heading[i + 1]) & 0x3Fu) << 6) |
                 (static_cast<unsigned char>(heading[i + 2]) & 0x3Fu);
        const bool punctuation = (cp >= 0x80 && cp <= 0xBF) || (cp >= 0x2000 && cp <= 0x2BFF) || n == 1;
        if (!punctuation) a += heading.substr(i, n);
        i += n;
    }
    return a;
}

struct MarkdownOutline {
    std::vector<std::pair<int, std::string>> headings;  // level, text (outside fences)
    std::vector<std::pair<int, std::string>> links;     // line, target of ](target)
    std::vector<std::string> contents_links;            // targets listed under "## Contents"
};

inline MarkdownOutline outline_of(const std::string& md) {
    MarkdownOutline o;
    bool in_fence = false, in_contents = false;
    std::size_t p = 0;
    int line = 0;
    while (p < md.size()) {
        std::size_t nl = md.find('\n', p);
        if (nl == std::string::npos) nl = md.size();
        const std::string l = md.substr(p, nl - p);
        p = nl + 1;
        ++line;
        if (is_fence(trim(l))) {
            in_fence = !in_fence;
            continue;
        }
        if (in_fence) continue;
        if (starts_with(l, "#")) {
            const std::size_t h = l.find_first_not_of('#');
            const int level = static_cast<int>(h == std::string::npos ? l.size() : h);
            o.headings.emplace_back(level, h == std::string::npos ? "" : trim(l.substr(h)));
            if (level <= 2) in_contents = o.headings.back().second == "Contents";
            continue;
        }
        // Links outside inline code: ](target)
        bool code = false;
        for (std::size_t i = 0; i < l.size(); ++i) {
            if (l[i] == '`') code = !code;
            if (code || l.compare(i, 2, "](") != 0) continue;
            const std::size_t e = l.find(')', i + 2);
            if (e == std::string::npos) break;
            o.links.emplace_back(line, l.substr(i + 2, e - i - 2));
            if (in_contents) o.contents_links.push_back(o.links.back().second);
        }
    }
    return o;
}

// The anchors of a page's headings as GitHub makes them: a repeated heading's anchor gets "-1",
// "-2", ... in order.
inline std::set<std::string> anchors_of(const std::string& md) {
    std::map<std::string, int> seen;
    std::set<std::string> all;
    for (const auto& h : outline_of(md).headings) {
        const std::string a = anchor_of(h.second);
        const int n = seen[a]++;
        all.insert(n == 0 ? a : a + "-" + std::to_string(n));
    }
    return all;
}

// The docs pages the README layer runs after README.md, in order: every docs/*.md page that the
// README's "## Contents" list links to, in the order of its first link there.
inline std::vector<std::string> docs_in_order(const std::string& readme_md) {
    std::vector<std::string> pages;
    for (const std::string& target : outline_of(readme_md).contents_links) {
        const std::string file = target.substr(0, target.find('#'));
        if (!starts_with(file, "docs/") || file.size() < 9 || file.compare(file.size() - 3, 3, ".md") != 0) continue;
        if (std::find(pages.begin(), pages.end(), file) == pages.end()) pages.push_back(file);
    }
    return pages;
}

// A relative link's file, resolved against the page's directory ("docs/ulid.md" + "../bench/x.sh"
// -> "bench/x.sh"; "" + "#a" -> the page itself). Empty when it climbs out of the repository.
inline std::string resolve_link(const std::string& page, const std::string& target) {
    const std::string file = target.substr(0, target.find('#'));
    if (file.empty()) return page;
    std::vector<std::string> parts;
    const std::string dir = page.find('/') == std::string::npos ? "" : page.substr(0, page.rfind('/') + 1);
    const std::string path = dir + file;
    std::size_t p = 0;
    while (p <= path.size()) {
        std::size_t e = path.find('/', p);
        if (e == std::string::npos) e = path.size();
        const std::string part = path.substr(p, e - p);
        if (part == "..") {
            if (parts.empty()) return "";
            parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        p = e + 1;
    }
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : "/") + part;
    if (!file.empty() && file.back() == '/' && !out.empty()) out += "/";
    return out;
}

// Every relative link of the pages that leads nowhere: to a file that does not exist, or to an
// anchor that no heading of its Markdown page has. `pages` holds the text of each page to check by
// its path in the repository; `exists` tells whether another path exists; `read` gives the text
// of a Markdown file outside `pages` (for its anchors). One message per broken link.
inline std::vector<std::string> link_problems(const std::map<std::string, std::string>& pages,
                                              const std::function<bool(const std::string&)>& exists,
                                              const std::function<std::string(const std::string&)>& read) {
    std::vector<std::string> problems;
    std::map<std::string, std::set<std::string>> anchors;
    for (const auto& [path, text] : pages) anchors[path] = anchors_of(text);
    for (const auto& [path, text] : pages) {
        for (const auto& [line, target] : outline_of(text).links) {
            if (target.find("://") != std::string::npos || starts_with(target, "mailto:")) continue;
            const std::string at = path + ":" + std::to_string(line) + ": ";
            const std::string file = resolve_link(path, target);
            if (file.empty()) {
                problems.push_back(at + target + " leads out of the repository");
                continue;
            }
            if (pages.count(file) == 0 && !exists(file)) {
                problems.push_back(at + "no file " + file + " (link " + target + ")");
                continue;
            }
            const std::size_t hash = target.find('#');
            if (hash == std::string::npos) continue;
            const std::string anchor = target.substr(hash + 1);
            if (file.size() < 3 || file.compare(file.size() - 3, 3, ".md") != 0)
                continue;  // e.g. #L10 of a source file
            if (anchors.count(file) == 0) anchors[file] = anchors_of(read(file));
            if (anchors[file].count(anchor) == 0)
                problems.push_back(at + "no heading of " + file + " has the anchor #" + anchor);
        }
    }
    return problems;
}

// The shape check of "-- e.g. <example>": the same length, the same characters where the example
// has a character other than a letter or digit, a letter or digit where it has one, and no
// upper-case (lower-case) letter unless the example has one.
inline bool same_shape(const std::string& example, const std::string& actual) {
    if (example.size() != actual.size()) return false;
    bool ex_upper = false, ex_lower = false;
    for (char c : example) {
        ex_upper = ex_upper || std::isupper(static_cast<unsigned char>(c));
        ex_lower = ex_lower || std::islower(static_cast<unsigned char>(c));
    }
    for (std::size_t i = 0; i < example.size(); ++i) {
        const auto e = static_cast<unsigned char>(example[i]), a = static_cast<unsigned char>(actual[i]);
        if (std::isalnum(e) != 0) {
            if (!std::isalnum(a)) return false;
        } else if (e != a) {
            return false;
        }
        if ((std::isupper(a) && !ex_upper) || (std::islower(a) && !ex_lower)) return false;
    }
    return true;
}

}  // namespace idgen::readme
