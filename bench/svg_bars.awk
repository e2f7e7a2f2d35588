# A horizontal bar chart as SVG, for bench/report.sh. Input: tab-separated lines
#   label <TAB> value <TAB> group
# (or other columns: -v lcol=N -v vcol=N -v gcol=N; -v header=1 skips a first line; the value is
# divided by -v div=X, e.g. 1048576 for bytes shown as MB)
# one bar per line, in input order; the bar's colour is its group's (builtin grey, id_gen blue, any
# other group, i.e. a peer extension, orange), with a legend. The longest bar is the largest value;
# a negative value (a net cost below its baseline's noise) draws no bar but keeps its label.
#   awk -f svg_bars.awk -v title="..." -v unit="ns" data.tsv > chart.svg
# A value that is not a number, or no line at all, is an error (exit 1, message on stderr).
BEGIN {
    FS = "\t"
    label_w = 330; bar_w = 380; value_w = 110; row_h = 22; top = 48
    n = 0
    if (lcol == "") lcol = 1
    if (vcol == "") vcol = 2
    if (gcol == "") gcol = 3
    if (div == "") div = 1
}
function esc(s) {
    gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
    gsub(/"/, "\\&quot;", s); gsub(/'/, "\\&apos;", s)
    return s
}
function colour(g) {
    if (g == "builtin") return "#8c8c8c"
    if (g == "id_gen") return "#1f77b4"
    return "#ff7f0e"
}
function fmt(v) {
    if (v >= 100 || v <= -100) return sprintf("%.0f", v)
    if (v >= 10 || v <= -10) return sprintf("%.1f", v)
    return sprintf("%.2f", v)
}
NF == 0 || (header && NR == 1) { next }
{
    if ($vcol !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) {
        printf "svg_bars.awk: line %d: value \"%s\" of \"%s\" is not a number\n", NR, $vcol, $lcol > "/dev/stderr"
        bad = 1
        exit 1
    }
    n++
    label[n] = $lcol; value[n] = $vcol / div; group[n] = ($gcol == "" ? "id_gen" : $gcol)
    if (value[n] > max) max = value[n]
    if (!(group[n] in seen)) { seen[group[n]] = 1; groups[++ng] = group[n] }
}
END {
    if (bad) exit 1
    if (n == 0) { print "svg_bars.awk: no data lines" > "/dev/stderr"; exit 1 }
    width = label_w + bar_w + value_w
    height = top + n * row_h + 40
    printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width, height
    printf "<title>%s</title>\n", esc(title)
    printf "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height
    printf "<text x=\"10\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s</text>\n", esc(title)
    for (i = 1; i <= n; i++) {
        y = top + (i - 1) * row_h
        w = (max > 0 && value[i] > 0) ? value[i] / max * bar_w : 0
        printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", label_w - 8, y + 15, esc(label[i])
        printf "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s: %s %s</title></rect>\n", label_w, y + 3, w, row_h - 6, colour(group[i]), esc(label[i]), fmt(value[i]), esc(unit)
        printf "<text x=\"%.2f\" y=\"%d\">%s %s</text>\n", label_w + w + 6, y + 15, fmt(value[i]), esc(unit)
    }
    y = top + n * row_h + 22
    x = 10
    for (j = 1; j <= ng; j++) {
        printf "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y - 10, colour(groups[j])
        printf "<text x=\"%d\" y=\"%d\">%s</text>\n", x + 16, y, esc(groups[j] == "builtin" ? "PostgreSQL built-in" : groups[j])
        x += 40 + 7 * length(groups[j] == "builtin" ? "PostgreSQL built-in" : groups[j])
    }
    printf "</svg>\n"
}
