# The Markdown page of bench/report.sh from its raw output (POSIX awk):
#   awk -f report_md.awk -v name=pg15 meta.tsv gen.tsv load.tsv > pg15.md
# meta.tsv: key <TAB> value. gen.tsv (header line first): group, contender, vs (a peer's id_gen
# counterpart), net_ns, spread_pct, best_ns, wait_pct. load.tsv (header first): group, kind, vs,
# rounds, rows, wall_ns, spread_pct, index_bytes, heap_bytes, wal_bytes, fpi, checkpoints.
# Ratios are computed here, against the built-ins of the same run: gen_random_uuid() and nextval()
# per ID, bigserial and uuid v4 for the loads. A missing file section, a missing reference row or a
# field that is not a number is an error (exit 1, message on stderr naming the file and value).
BEGIN {
    FS = "\t"
    if (ref_uuid == "") ref_uuid = "gen_random_uuid()"
    if (ref_seq == "") ref_seq = "nextval()"
    if (ref_serial == "") ref_serial = "bigserial"
    if (ref_v4 == "") ref_v4 = "uuid v4: gen_random_uuid()"
}
function fail(msg) { printf "report_md.awk: %s\n", msg > "/dev/stderr"; failed = 1; exit 1 }
function num(i) {
    if ($i !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/)
        fail(sprintf("%s line %d: field %d (\"%s\") is not a number", FILENAME, FNR, i, $i))
    return $i + 0
}
function r3(x) { return sprintf("%.3f", x) }
function r2(x) { return sprintf("%.2f", x) }
function mb(b) { return sprintf("%.1f", b / 1048576) }
# An integer with thousands separators: 2000000 -> 2,000,000.
function th(x,    s, r) {
    s = sprintf("%d", x); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}
function from(g) { return g == "builtin" ? "PostgreSQL" : g }
# " (N.N× faster)" when a costs less than b, "" otherwise (or when either is not positive).
function times(a, b) { return (a > 0 && b > a) ? sprintf(" (%.1f× faster)", b / a) : "" }
FNR == 1 { file++ }
file == 1 && NF >= 2 { meta[$1] = $2; next }
file == 2 && FNR > 1 && NF > 0 {
    if (NF < 7) fail(sprintf("%s line %d: %d fields, expected 7", FILENAME, FNR, NF))
    ng++; g_grp[ng] = $1; g_name[ng] = $2; g_vs[ng] = $3
    g_ns[ng] = num(4); g_spread[ng] = num(5); g_best[ng] = num(6)
    g_idx[$2] = ng
    next
}
file == 3 && FNR > 1 && NF > 0 {
    if (NF < 12) fail(sprintf("%s line %d: %d fields, expected 12", FILENAME, FNR, NF))
    nl++; l_grp[nl] = $1; l_name[nl] = $2; l_vs[nl] = $3
    l_rounds[nl] = num(4); l_rows[nl] = num(5); l_ns[nl] = num(6); l_spread[nl] = num(7)
    l_index[nl] = num(8); l_heap[nl] = num(9); l_wal[nl] = num(10); l_fpi[nl] = num(11); l_ckpt[nl] = num(12)
    l_idx[$2] = nl
    next
}
END {
    if (failed) exit 1
    if (file < 3) fail("expected three files: meta.tsv gen.tsv load.tsv")
    if (!("major" in meta)) fail("meta.tsv has no major line")
    if (!(ref_uuid in g_idx)) fail("gen.tsv has no " ref_uuid " row (the reference of the ratios)")
    if (!(ref_seq in g_idx)) fail("gen.tsv has no " ref_seq " row (the reference of the ratios)")
    if (!(ref_serial in l_idx)) fail("load.tsv has no " ref_serial " row (the reference of the ratios)")
    if (!(ref_v4 in l_idx)) fail("load.tsv has no " ref_v4 " row (the reference of the ratios)")
    U = g_ns[g_idx[ref_uuid]]; S = g_ns[g_idx[ref_seq]]
    if (U <= 0 || S <= 0) fail("the reference rows must have positive ns per ID")
    b = l_idx[ref_serial]; v = l_idx[ref_v4]

    printf "# id_gen benchmarks: PostgreSQL %s\n\n", meta["major"]
    printf "One run of `bash bench/report.sh`, %s, on %s (%s cores), Linux %s; server: %s.\n", \
        meta["date"], meta["cpu"], meta["cores"], meta["kernel"], meta["server"]
    printf "Load average (1, 5, 15 min) at the start: %s; at the end: %s (other work on the machine). ", \
        meta["load_start"], meta["load_end"]
    printf "The run took %d s. Ratios are measured against PostgreSQL's built-ins in the same run and carry across machines better than the absolute numbers, which depend on the CPU. ", meta["duration_s"]
    printf "Raw output: [raw/%s/](raw/%s/); `bash bench/report.sh --from bench/results/raw/%s` renders this page again; the method is in [bench/README.md](../README.md).\n\n", name, name, name

    # ---- headline ratios
    printf "## Ratios\n\n"
    lo = ""; hi = ""
    for (i = 1; i <= ng; i++) if (g_grp[i] == "id_gen" && g_name[i] !~ /_encode/) {
        if (lo == "" || g_ns[i] < g_ns[lo]) lo = i
        if (hi == "" || g_ns[i] > g_ns[hi]) hi = i
    }
    if (lo != "")
        printf "- Per ID, id_gen's generators cost %s (`%s`) to %s (`%s`) of `%s`'s time, and %s to %s of `%s`'s.\n", \
            r3(g_ns[lo] / U), g_name[lo], r3(g_ns[hi] / U), g_name[hi], ref_uuid, r3(g_ns[lo] / S), r3(g_ns[hi] / S), ref_seq
    for (i = 1; i <= ng; i++) if (g_vs[i] != "" && (g_vs[i] in g_idx))
        printf "- Per ID, id_gen's `%s` costs %s of %s's `%s`%s.\n", g_vs[i], r3(g_ns[g_idx[g_vs[i]]] / g_ns[i]), g_grp[i], g_name[i], \
            times(g_ns[g_idx[g_vs[i]]], g_ns[i])
    for (i = 1; i <= nl; i++) if (i != b && i != v && l_grp[i] == "id_gen")
        printf "- %s-row primary-key load, key `%s`: time %s, index size %s, WAL %s of uuid v4's (`gen_random_uuid()`); %s, %s, %s of `bigserial`'s.\n", \
            th(l_rows[i]), l_name[i], r2(l_ns[i] / l_ns[v]), r2(l_index[i] / l_index[v]), r2(l_wal[i] / l_wal[v]), \
            r2(l_ns[i] / l_ns[b]), r2(l_index[i] / l_index[b]), r2(l_wal[i] / l_wal[b])
    printf "\n"

    # ---- cost per ID
    printf "## 1. Cost per ID\n\n"
    printf "`SELECT count(f()) FROM generate_series(1, %s)` per contender, net of the same loop without the call (encoders: net of `count(g::bigint)`), on the backend's CPU clock; the median of %s interleaved rounds in one session of a preloaded cluster, with a 60 s run-ahead allowance so that no generator waits for the clock. Below 1 is faster than the reference.\n\n", meta["gen_rows"], meta["gen_rounds"]
    printf "| contender | from | ratio to `%s` | ratio to `%s` | net ns/ID | spread %% | best-round ns/ID |\n", ref_uuid, ref_seq
    printf "|---|---|---:|---:|---:|---:|---:|\n"
    for (i = 1; i <= ng; i++)
        printf "| `%s` | %s | %s | %s | %.1f | %d | %.1f |\n", g_name[i], from(g_grp[i]), r3(g_ns[i] / U), r3(g_ns[i] / S), g_ns[i], g_spread[i], g_best[i]
    printf "\n![net ns per ID](%s-gen.svg)\n\n", name

    # ---- loads
    printf "## 2. Primary-key loads\n\n"
    printf "%s rows into a fresh table `(id <key> PRIMARY KEY DEFAULT <generator>, n int)` in INSERTs of %s rows, each INSERT its own transaction as an application commits, after a `CHECKPOINT`, so every load starts with clean pages; %s interleaved round(s), medians. ", \
        th(l_rows[b]), th(meta["load_batch"]), meta["load_rounds"]
    printf "Settings: `full_page_writes = %s`, `wal_compression = %s`, `max_wal_size = %s`, `checkpoint_timeout = %s`, `shared_buffers = %s`, `fsync = %s`, `synchronous_commit = %s`. ", \
        meta["full_page_writes"], meta["wal_compression"], meta["max_wal_size"], meta["checkpoint_timeout"], meta["shared_buffers"], meta["fsync"], meta["synchronous_commit"]
    printf "Checkpoints come from WAL volume only (`max_wal_size`), the same for every key kind whatever the machine's speed, about every %s / 1.9 of WAL: as in production, where a table's primary key is many times larger than the WAL written between two checkpoints, the first change to a page after a checkpoint writes the whole page. Random keys touch every leaf page of the index again after each checkpoint; time-ordered keys touch the rightmost one. WAL bytes are the insert-LSN difference over the load; full-page images (FPIs) come from `pg_stat_wal`.\n\n", meta["max_wal_size"]
    printf "| key | from | time ÷ bigserial | index ÷ bigserial | WAL ÷ bigserial | WAL ÷ uuid v4 | load s | spread %% | index MB | WAL MB | FPIs | checkpoints |\n"
    printf "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for (i = 1; i <= nl; i++)
        printf "| `%s` | %s | %s | %s | %s | %s | %.1f | %d | %s | %s | %d | %d |\n", l_name[i], from(l_grp[i]), \
            r2(l_ns[i] / l_ns[b]), r2(l_index[i] / l_index[b]), r2(l_wal[i] / l_wal[b]), r2(l_wal[i] / l_wal[v]), \
            l_ns[i] / 1e9, l_spread[i], mb(l_index[i]), mb(l_wal[i]), l_fpi[i], l_ckpt[i]
    printf "\n![load time](%s-load-time.svg)\n\n![index size](%s-load-index.svg)\n\n![WAL](%s-load-wal.svg)\n\n", name, name, name

    # ---- peers
    printf "## 3. Beside the extensions a user would pick instead\n\n"
    printf "Built with PGXS from their sources (%s) into the same server, measured in the same session (IDs) and the same cluster (loads) as the rows above, with their default parameters: sequential_uuids' `uuid_time_nextval()` starts a new prefix block every 60 s and `uuid_sequence_nextval()` every 65,536 values, the rest of each value random within the block; permuteseq's `permute_nextval()` permutes the sequence's whole range. Ratio below 1: id_gen is faster or smaller.\n\n", meta["peers"]
    printf "| peer | extension | peer ns/ID | id_gen | id_gen ns/ID | id_gen ÷ peer |\n|---|---|---:|---|---:|---:|\n"
    for (i = 1; i <= ng; i++) if (g_vs[i] != "") {
        if (!(g_vs[i] in g_idx)) fail("gen.tsv: " g_name[i] " is compared with " g_vs[i] ", which has no row")
        j = g_idx[g_vs[i]]
        printf "| `%s` | %s | %.1f | `%s` | %.1f | %s |\n", g_name[i], g_grp[i], g_ns[i], g_name[j], g_ns[j], r3(g_ns[j] / g_ns[i])
    }
    printf "\n| peer key | extension | id_gen key | time: id_gen ÷ peer | index: id_gen ÷ peer | WAL: id_gen ÷ peer |\n|---|---|---|---:|---:|---:|\n"
    for (i = 1; i <= nl; i++) if (l_vs[i] != "") {
        if (!(l_vs[i] in l_idx)) fail("load.tsv: " l_name[i] " is compared with " l_vs[i] ", which has no row")
        j = l_idx[l_vs[i]]
        printf "| `%s` | %s | `%s` | %s | %s | %s |\n", l_name[i], l_grp[i], l_name[j], r2(l_ns[j] / l_ns[i]), r2(l_index[j] / l_index[i]), r2(l_wal[j] / l_wal[i])
    }
}
