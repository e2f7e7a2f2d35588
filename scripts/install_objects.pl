#!/usr/bin/env perl
# install_objects.pl SCRIPT: the names an extension script creates in its schema, as the array
# literal that the install guard (src/sql/00_head.sql) checks before anything is
# created. The Makefile runs it on the install script it builds, so the list is the script's own:
# an object added to a piece is in the list of the next build.
#
# Each element is "<kind> <identity>", in the order the script creates them, each once:
#   function NAME(TYPE, ...)   functions, procedures and aggregates, by their input types
#   type NAME                  base, shell and composite types
#   relation NAME              tables, indexes, sequences, views (the index of a PRIMARY KEY or
#                              UNIQUE constraint is not listed: PostgreSQL picks a free name for it)
#   operator OP(LEFT,RIGHT)    operators (NONE for a missing side)
#   opclass NAME METHOD        operator classes; opfamily NAME METHOD for families, also the one a
#                              CREATE OPERATOR CLASS without FAMILY makes
#   event_trigger NAME         event triggers (their names are the database's, not a schema's)
# Statements that name no new object of the schema (triggers and casts are named by the tables
# and types above: a cast is checked to involve a type of the script) are skipped; any other
# CREATE stops the build, so that no kind of object is missed silently.
# Only top-level statements count: bodies in quotes (PL/pgSQL, EXECUTE format(...)) are skipped.
use strict;
use warnings;

my $file = shift @ARGV or die "usage: install_objects.pl SCRIPT\n";
open(my $h, '<', $file) or die "$file: $!\n";
my $text = do { local $/; <$h> };
close $h;

# Top-level statements, quoted parts replaced by a placeholder (their text never names an object
# of the script's own), comments dropped, whitespace one space.
my @statements;
{
    my $cur = '';
    my $depth = 0;    # BEGIN ATOMIC ... END nesting
    pos($text) = 0;
    while (pos($text) < length $text) {
        if ($cur =~ /^\s*$/ && $text =~ /\G\\[^\n]*/gc) { $cur = ''; }
        elsif ($text =~ /\G--[^\n]*/gc) { $cur .= ' '; }
        elsif ($text =~ /\G\/\*.*?\*\//gcs) { $cur .= ' '; }
        elsif ($text =~ /\G[eE]'(?:[^'\\]|\\.|'')*'/gcs || $text =~ /\G'(?:[^']|'')*'/gc) { $cur .= "'?'"; }
        elsif ($text =~ /\G("(?:[^"]|"")*")/gc) { $cur .= $1; }
        elsif ($text =~ /\G(\$([A-Za-z_][A-Za-z_0-9]*)?\$)/gc) {
            my $close = index($text, $1, pos($text));
            die "$file: unterminated dollar quote $1\n" if $close < 0;
            pos($text) = $close + length $1;
            $cur .= "'?'";
        } elsif ($text =~ /\G([A-Za-z_][A-Za-z_0-9\$]*)/gc) {
            my $word = $1;
            my $w = lc $word;
            if ($w eq 'atomic' && $cur =~ /\bbegin\s*$/i) { $depth++; }
            elsif ($depth > 0 && $w eq 'case') { $depth++; }
            elsif ($depth > 0 && $w eq 'end') { $depth--; }
            $cur .= $word;
        } elsif ($text =~ /\G;/gc) {
            if ($depth > 0) { $cur .= ';'; next; }
            push @statements, $cur if $cur =~ /\S/;
            $cur = '';
        } elsif ($text =~ /\G\s+/gc) { $cur .= ' '; }
        else { $text =~ /\G(.)/gcs; $cur .= $1; }
    }
    push @statements, $cur if $cur =~ /\S/;
    s/\s+/ /g, s/^ | $//g for @statements;
}

my $ident = qr/(?:"(?:[^"]|"")*"|[A-Za-z_][A-Za-z_0-9\$]*)/;
sub unqualify { my ($n) = @_; $n =~ s/^\@extschema\@\.//; return lc $n; }

# The input types of an argument list: modes, names and defaults dropped, OUT arguments left out.
my %type_word = map { $_ => 1 } qw(double precision character varying bit time timestamp with without zone);
sub arg_types {
    my ($list) = @_;
    my @args;
    my ($cur, $level) = (q{}, 0);
    for my $c (split //, $list) {
        if ($c eq '(') { $level++; } elsif ($c eq ')') { $level--; }
        if ($c eq ',' && $level == 0) { push @args, $cur; $cur = ''; next; }
        $cur .= $c;
    }
    push @args, $cur if $cur =~ /\S/;
    my @types;
    for my $a (@args) {
        $a =~ s/\s+(?:DEFAULT\b|=).*$//is;
        $a =~ s/^\s+|\s+$//g;
        my $mode = $a =~ s/^(IN|OUT|INOUT|VARIADIC)\s+//i ? uc $1 : 'IN';
        next if $mode eq 'OUT';
        my @w = split /\s+/, $a;
        shift @w if @w > 1 && !$type_word{ lc $w[1] =~ s/[\[(].*//r };    # a name before the type
        die "$file: cannot read the argument '$a'\n" unless @w;
        push @types, lc join ' ', @w;
    }
    return join(',', @types);
}

my (@objects, %seen, %types);
sub add { my ($o) = @_; push @objects, $o unless $seen{$o}++; }
for my $s (@statements) {
    next unless $s =~ /^CREATE\b/i;
    if ($s =~ /^CREATE (?:OR REPLACE )?(?:FUNCTION|PROCEDURE|AGGREGATE) ((?:\@extschema\@\.)?$ident) ?\((.*?)\) ?(?:RETURNS|AS|LANGUAGE|\(|$)/i) {
        my ($name, $args) = (unqualify($1), $2);
        add("function $name(" . arg_types($args) . ')');
    } elsif ($s =~ /^CREATE TYPE ((?:\@extschema\@\.)?$ident)/i) {
        my $t = unqualify($1);
        $types{$t} = 1;
        add("type $t");
    } elsif ($s =~ /^CREATE (?:UNLOGGED |TEMP |TEMPORARY )?TABLE (?:IF NOT EXISTS )?((?:\@extschema\@\.)?$ident)/i) {
        my $t = unqualify($1);
        add("relation $t");
        add("type $t");    # its row type
    } elsif ($s =~ /^CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?($ident) ON /i) {
        add('relation ' . lc $1);
    } elsif ($s =~ /^CREATE (?:OR REPLACE )?(?:SEQUENCE|VIEW|MATERIALIZED VIEW) (?:IF NOT EXISTS )?((?:\@extschema\@\.)?$ident)/i) {
        add('relation ' . unqualify($1));
    } elsif ($s =~ /^CREATE OPERATOR ((?:\@extschema\@\.)?[-+*\/<>=~!\@#%^&|`?]+) ?\((.*)\)$/i) {
        my ($op, $body) = ($1, $2);
        $op =~ s/^\@extschema\@\.//;
        my ($l) = $body =~ /\bLEFTARG ?= ?([^,]+?) ?(?:,|$)/i;
        my ($r) = $body =~ /\bRIGHTARG ?= ?([^,]+?) ?(?:,|$)/i;
        add("operator $op(" . lc(unqualify($l // 'NONE')) . ',' . lc(unqualify($r // 'NONE')) . ')');
    } elsif ($s =~ /^CREATE OPERATOR CLASS ($ident) .*?\bUSING ($ident)/i) {
        my ($name, $am) = (lc $1, lc $2);
        add("opclass $name $am");
        if ($s =~ /\bFAMILY ($ident) AS\b/i) { add('opfamily ' . lc($1) . " $am"); }
        else { add("opfamily $name $am"); }
    } elsif ($s =~ /^CREATE OPERATOR FAMILY ($ident) USING ($ident)/i) {
        add('opfamily ' . lc($1) . ' ' . lc($2));
    } elsif ($s =~ /^CREATE EVENT TRIGGER ($ident)/i) {
        add('event_trigger ' . lc $1);
    } elsif ($s =~ /^CREATE CAST ?\( ?(.+?) AS (.+?) ?\)/i) {
        my ($from, $to) = (unqualify($1), unqualify($2));
        die "$file: CREATE CAST ($from AS $to) involves no type of the script: a cast between "
            . "existing types could clash unseen\n" unless $types{$from} || $types{$to};
    } elsif ($s =~ /^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?TRIGGER /i) {
        # named by its table, which is the script's
    } else {
        die "$file: a CREATE statement install_objects.pl does not know: " . substr($s, 0, 120) . "\n";
    }
}
die "$file: no objects found\n" unless @objects;

# A one-dimensional text[] literal, one element a line, after the marker that
# test/package/install_script_test.pl finds.
print "ARRAY[ -- install_objects: the Makefile's list of what this script creates\n", join(",\n", map { (my $q = $_) =~ s/'/''/g; "        '$q'" } @objects), "\n    ]\n";
