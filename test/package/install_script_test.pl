#!/usr/bin/env perl
# The install script of the version in development against the newest released one, TAP (part of
# the package layer, test/package/run.sh). Both are split into statements as psql splits them
# (quotes, dollar quotes, comments and BEGIN ATOMIC bodies respected; a backslash command ends at
# its line's end), comments dropped and whitespace outside quotes made one space. Then:
#  - the built script holds the released one's statements, as a multiset, in any order, but for
#    those test/package/install_changes/<released>--<current>.sql lists under `-- removed:`, and
#    nothing else but those it lists under `-- restated:` (what the released script said in
#    several statements, said in one) and `-- added:` (what the version in development adds).
#    The file must list exactly the differences, so it cannot go stale; with no file, no
#    difference is allowed;
#  - the configuration tables (pg_extension_config_dump) come in the released script's order, any
#    new ones after them, as an update appends them (src/sql/README.md);
#  - no piece of src/sql carries a release in its name, and no two share a number;
#  - the splitter splits as psql does, and a negative control: one statement changed, one dropped
#    and one added are reported as exactly those.
# The built script comes from the Makefile's own rule, run on a copy of the files it reads.
#   PG_CONFIG   the pg_config whose PGXS the Makefile includes (default: pg_config on PATH)
# No server (a second).
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use File::Copy qw(copy);
use Cwd qw(abs_path);

my $root = abs_path(dirname(abs_path($0)) . '/../..');
my $n = 0;
my $fails = 0;
sub ok {
    my ($pass, $name, @detail) = @_;
    $n++;
    if ($pass) { print "ok $n - $name\n"; return; }
    $fails++;
    print "not ok $n - $name\n";
    print map { "#   $_\n" } map { split /\n/ } @detail;
}
sub slurp { my ($f) = @_; open(my $h, '<', $f) or die "$f: $!\n"; local $/; my $t = <$h>; close $h; return $t; }

# Statements of a script, each normalised: comments gone, whitespace outside quotes one space.
sub statements {
    my ($text) = @_;
    my @out;
    my $cur = '';
    my @words;     # the statement's first words, to know a CREATE FUNCTION or PROCEDURE
    my $depth = 0; # BEGIN ... END nesting of a BEGIN ATOMIC body
    my $end = sub {
        push @out, $cur if $cur =~ /\S/;
        $cur = '';
        @words = ();
        $depth = 0;
    };
    pos($text) = 0;
    while (pos($text) < length $text) {
        if ($cur =~ /^\s*$/ && $text =~ /\G(\\[^\n]*)/gc) {                # a backslash command
            $cur = $1; $end->();
        } elsif ($text =~ /\G--[^\n]*/gc) {
            $cur .= ' ';
        } elsif ($text =~ /\G\/\*/gc) {                                       # nested block comments
            my $level = 1;
            while ($level > 0) {
                if ($text =~ /\G\/\*/gc) { $level++; }
                elsif ($text =~ /\G\*\//gc) { $level--; }
                elsif ($text =~ /\G./gcs) { }
                else { die "unterminated block comment\n"; }
            }
            $cur .= ' ';
        } elsif ($text =~ /\G([eE]'(?:[^'\\]|\\.|'')*')/gcs || $text =~ /\G('(?:[^']|'')*')/gc
                 || $text =~ /\G("(?:[^"]|"")*")/gc) {
            $cur .= "\0$1\0";                                                  # kept verbatim
        } elsif ($text =~ /\G(\$([A-Za-z_][A-Za-z_0-9]*)?\$)/gc) {
            my $tag = $1;
            my $start = pos($text);
            my $close = index($text, $tag, $start);
            die "unterminated dollar quote $tag\n" if $close < 0;
            $cur .= "\0" . $tag . substr($text, $start, $close - $start) . $tag . "\0";
            pos($text) = $close + length $tag;
        } elsif ($text =~ /\G([A-Za-z_][A-Za-z_0-9\$]*)/gc) {
            my $word = $1;
            my $w = lc $word;
            push @words, $w if @words < 4;
            my $routine = @words >= 2 && $words[0] eq 'create'
                && ($words[1] =~ /^(function|procedure)$/
                    || (@words >= 4 && $words[1] eq 'or' && $words[3] =~ /^(function|procedure)$/));
            if ($routine && $w eq 'begin') { $depth++; }
            elsif ($depth > 0 && $w eq 'case') { $depth++; }
            elsif ($depth > 0 && $w eq 'end') { $depth--; }
            $cur .= $word;
        } elsif ($text =~ /\G;/gc) {
            if ($depth > 0) { $cur .= ';'; } else { $end->(); }
        } elsif ($text =~ /\G\s+/gc) {
            $cur .= ' ';
        } else {
            $text =~ /\G(.)/gcs;
            $cur .= $1;
        }
    }
    $end->();
    # Only the spaces outside quotes were collapsed: the quoted parts are between NUL bytes.
    return map { my @p = split /\0/, $_, -1; my $s = '';
                 for my $i (0 .. $#p) { $s .= $i % 2 ? $p[$i] : do { (my $x = $p[$i]) =~ s/\s+/ /g; $x } }
                 $s =~ s/^ | $//g; $s } @out;
}

sub count { my %c; $c{$_}++ for @_; return \%c; }
# (only in a, only in b), each sorted, a statement repeated as often as its count differs.
sub difference {
    my ($a, $b) = @_;
    my ($ca, $cb) = (count(@$a), count(@$b));
    my (@only_a, @only_b);
    for my $s (sort keys %$ca) { push @only_a, ($s) x ($ca->{$s} - ($cb->{$s} // 0)) if $ca->{$s} > ($cb->{$s} // 0); }
    for my $s (sort keys %$cb) { push @only_b, ($s) x ($cb->{$s} - ($ca->{$s} // 0)) if $cb->{$s} > ($ca->{$s} // 0); }
    return (\@only_a, \@only_b);
}
sub same_list { my ($a, $b) = @_; return join("\0", sort @$a) eq join("\0", sort @$b); }
sub shown { my ($title, @s) = @_; return ("$title (" . scalar(@s) . "):", map { "  " . (length > 300 ? substr($_, 0, 300) . " ..." : $_) } @s); }
sub config_tables { return map { /pg_extension_config_dump\s*\(\s*'(?:\@extschema\@\.)?([^']+)'/i ? ($1) : () } @_; }

# ---- The two scripts.
my $control = slurp("$root/id_gen.control");
my ($current) = $control =~ /^default_version\s*=\s*'([^']+)'/m or die "no default_version in id_gen.control\n";
sub vkey { return join '.', map { sprintf '%06d', $_ } split /\./, $_[0]; }
my @released = sort { vkey($a) cmp vkey($b) }
               grep { $_ ne $current } map { m{/id_gen--([0-9.]+)\.sql$} ? ($1) : () } glob("$root/id_gen--*.sql");
die "no released install script at the top of the repository\n" unless @released;
my $previous = $released[-1];

my $work = tempdir('id_gen_install_script_test.XXXXXX', TMPDIR => 1, CLEANUP => 1);
mkdir "$work/src"; mkdir "$work/src/sql"; mkdir "$work/src/update"; mkdir "$work/scripts";
copy("$root/$_", "$work/$_") or die "$_: $!\n" for 'Makefile', 'id_gen.control', 'scripts/install_objects.pl';
for my $f (glob("$root/src/sql/*.sql"), glob("$root/src/update/*.sql")) {
    (my $rel = $f) =~ s/^\Q$root\E\///;
    copy($f, "$work/$rel") or die "$rel: $!\n";
}
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $built_name = "id_gen--$current.sql";
my $make = `make -s -C '$work' '$built_name' PG_CONFIG='$pg_config' 2>&1`;
if ($? != 0 || !-f "$work/$built_name") {
    ok(0, "install script: make builds $built_name", $make);
    print "# install script: $n checks, $fails failed\n";
    exit 1;
}
my $built = slurp("$work/$built_name");
# The install guard's list of the script's objects (src/sql/00_head.sql) is made by the
# Makefile from the script: it is compared as the piece writes it, before the list is put in.
my $guard_lists = () = $built =~ /ARRAY\[ -- install_objects: /g;
ok($guard_lists == 1 && $built =~ /ARRAY\[ -- install_objects: [^\n]*\n(?:        '[a-z_]+ [^'\n]+',?\n){100,}    \]/,
   "install script: the install guard holds the Makefile's list of the script's objects",
   "ARRAY[ -- install_objects: ... found $guard_lists times, or with fewer than 100 elements");
$built =~ s/ARRAY\[ -- install_objects: [^\n]*\n(?:        '[^'\n]*',?\n)*    \];/'{}'::text[]; -- install_objects/g;
my @new = statements($built);
my @old = statements(slurp("$root/id_gen--$previous.sql"));

# The listed differences.
my %listed = (removed => [], restated => [], added => []);
my $changes = "$root/test/package/install_changes/$previous--$current.sql";
(my $changes_shown = $changes) =~ s/^\Q$root\E\///;
if (-f $changes) {
    my $section;
    my %text = map { $_ => '' } keys %listed;
    for my $line (split /^/, slurp($changes)) {
        if ($line =~ /^-- (removed|restated|added):\s*$/) { $section = $1; next; }
        die "$changes_shown: a statement before the first heading (-- removed:, -- restated:, -- added:)\n"
            if !defined $section && $line =~ /^\s*[^-\s]/;
        $text{$section} .= $line if defined $section;
    }
    $listed{$_} = [statements($text{$_})] for keys %text;
}
my @removed = @{ $listed{removed} };
my @added = (@{ $listed{restated} }, @{ $listed{added} });

# ---- The splitter sees what it must (else every comparison below would be meaningless).
{
    my @t = statements("-- c\n\\echo a; b \\quit\nCREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END;\n"
                       . "CREATE FUNCTION g() RETURNS void AS \$x\$ BEGIN PERFORM 1; END \$x\$ LANGUAGE plpgsql;\n"
                       . "COMMENT ON FUNCTION g() IS 'a;  b' /* x; /* y; */ */ ; SELECT \$1, 'it''s';\n");
    ok(@t == 5 && $t[0] eq '\echo a; b \quit' && $t[1] =~ /END; END$/ && $t[2] =~ /\$x\$ BEGIN PERFORM 1; END \$x\$ LANGUAGE/
       && $t[3] eq "COMMENT ON FUNCTION g() IS 'a;  b'" && $t[4] eq "SELECT \$1, 'it''s'",
       "install script: statements are split as psql splits them", shown("statements", @t));
    ok(@old > 500 && @new > 500, "install script: $previous\'s and $current\'s scripts split into statements",
       scalar(@old) . " and " . scalar(@new) . " statements");
}

# ---- Negative control: a change, a drop and an addition are each reported, and nothing else.
{
    my @changed = @new;
    my ($i) = grep { $changed[$_] =~ /^COMMENT ON / } 0 .. $#changed;
    my $was = $changed[$i];
    (my $now = $was) =~ s/'$/.'/;
    $changed[$i] = $now;
    my $dropped = splice(@changed, $i + 1, 1);
    push @changed, 'SELECT 1';
    my ($a, $b) = difference(\@changed, \@new);
    ok(same_list($a, [$now, 'SELECT 1']) && same_list($b, [$was, $dropped]),
       "install script: the comparison reports a changed, a dropped and an added statement",
       shown("only in the changed copy", @$a), shown("only in the copy", @$b));
}

# ---- The comparison.
my ($only_old, $only_new) = difference(\@old, \@new);
{
    my ($unlisted, $stale) = difference($only_old, \@removed);
    ok(!@$unlisted && !@$stale,
       "install script: $current\'s has every statement of $previous\'s but those listed as removed",
       "$changes_shown lists under -- removed: exactly the statements of $previous\'s script that $current\'s has not",
       shown("not in $current\'s and not listed", @$unlisted),
       shown("listed but in $current\'s, or not in $previous\'s", @$stale));
}
{
    my ($unlisted, $stale) = difference($only_new, \@added);
    ok(!@$unlisted && !@$stale,
       "install script: $current\'s adds only the statements listed as restated or added",
       "$changes_shown lists under -- restated: and -- added: exactly the statements of $current\'s script that $previous\'s has not",
       shown("not in $previous\'s and not listed", @$unlisted),
       shown("listed but in $previous\'s, or not in $current\'s", @$stale));
}

# ---- Configuration tables: the released order first, as an update appends new ones.
{
    my @o = config_tables(@old);
    my @w = config_tables(@new);
    my $prefix = join(' ', @w[0 .. ($#o < $#w ? $#o : $#w)]);
    ok(@o > 0 && @w >= @o && $prefix eq join(' ', @o),
       "install script: the configuration tables in $previous\'s order, new ones last",
       "$previous: @o", "$current: @w");
}

# ---- Piece names.
{
    my (@problems, %number);
    for my $f (map { s{.*/}{}r } glob("$root/src/sql/*.sql")) {
        if ($f !~ /^(\d\d)_[a-z0-9_]+\.sql$/) { push @problems, "$f: not NN_area.sql"; next; }
        push @{ $number{$1} }, $f;
        push @problems, "$f: a release in the name" if $f =~ /_\d+_\d+(_\d+)?\.sql$|\d+\.\d+/;
    }
    push @problems, map { "number $_: @{ $number{$_} }" } grep { @{ $number{$_} } > 1 } sort keys %number;
    ok(!@problems, "install script: each src/sql piece has a number of its own and no release in its name", @problems);
}

print "# install script: $n checks, $fails failed\n";
exit($fails ? 1 : 0);
