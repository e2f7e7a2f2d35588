#!/usr/bin/perl
# META.json, checked against the PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/, "PGXN Meta Spec -
# The PGXN distribution metadata specification") and against the repository it describes; with it
# LICENSE and CHANGELOG.md. Prints one "ok N - ..." or "not ok N - ..." line per check.
#
# No validator of the spec is packaged for Debian or npm, so spec_errors() below implements its
# rules: required and optional keys, custom keys only as x_..., and the types String, Term, Tag,
# URI, Version (Semantic Versioning 2.0.0), Version Range, License String, and the prereqs
# structure (phases, relationships). Negative controls make one spec violation at a time and
# expect exactly it to be reported; positive controls check forms the spec allows that
# META.json does not use.
use strict;
use warnings;
use B ();
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use JSON::PP ();

my $root = abs_path(dirname(abs_path(__FILE__)) . '/../..');
my $tests = 0;

# check(CONDITION, NAME, DIAGNOSTICS...): the condition is taken in scalar context.
sub check($$;@) {
    my ($ok, $name, @diag) = @_;
    $tests++;
    print(($ok ? 'ok' : 'not ok') . " $tests - $name\n");
    print map { "#   $_\n" } @diag unless $ok;
    return $ok;
}

sub slurp {
    my ($path) = @_;
    open my $fh, '<:raw', $path or return undef;
    local $/;
    return scalar <$fh>;
}

# ---------------------------------------------------------------------------------------------
# The spec's data types

my $SEMVER = qr/(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)
                (?:-(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?
                (?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?/x;

my %LICENSES = map { $_ => 1 } qw(
    agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2
    gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun
    zlib open_source restricted unrestricted unknown);
my %PHASES = map { $_ => 1 } qw(configure build test runtime develop);
my %RELATIONS = map { $_ => 1 } qw(requires recommends suggests conflicts);
my %RELEASE_STATUS = map { $_ => 1 } qw(stable testing unstable);

# JSON strings and numbers both decode to Perl scalars: the decoder leaves a string with only its
# string flag set. (Call before using the value as a number.)
sub is_json_string {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    my $flags = B::svref_2object(\$v)->FLAGS;
    return ($flags & B::SVp_POK) && !($flags & (B::SVp_IOK | B::SVp_NOK));
}
sub is_json_number {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    my $flags = B::svref_2object(\$v)->FLAGS;
    return ($flags & (B::SVp_IOK | B::SVp_NOK)) ? 1 : 0;
}
sub is_map  { ref $_[0] eq 'HASH' }
sub is_list { ref $_[0] eq 'ARRAY' }

sub is_string  { is_json_string($_[0]) && length $_[0] > 0 }
sub is_term    { is_string($_[0]) && length $_[0] >= 2 && $_[0] !~ m{[\s\p{Cc}/\\]} }
sub is_tag     { is_string($_[0]) && length $_[0] < 256 && $_[0] !~ m{[\p{Cc}/\\]} }
sub is_version { is_json_string($_[0]) && $_[0] =~ /\A$SEMVER\z/ }
sub is_uri     { is_string($_[0]) && $_[0] =~ m{\A[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+[^\s]*\z} }
sub is_email   { is_string($_[0]) && $_[0] =~ /\A[^@\s]+@[^@\s]+\.[^@\s]+\z/ }
sub is_custom_key { $_[0] =~ /\Ax_/i }
# A path relative to the distribution's root, in unix form.
sub is_path    { is_string($_[0]) && $_[0] !~ m{\A/} && $_[0] !~ m{\\} && $_[0] !~ m{(?:\A|/)\.\.(?:/|\z)} }

# "0" (any version; also the number 0), a Version, or operator-Version terms joined by commas.
sub is_version_range {
    my ($v) = @_;
    return 1 if is_json_number($v) && $v == 0;
    return 0 unless is_string($v);
    for my $term (split /,\s*/, $v, -1) {
        next if $term eq '0';
        return 0 unless $term =~ /\A(?:(?:<=|>=|==|!=|<|>)\s*)?$SEMVER\z/;
    }
    return 1;
}

# ---------------------------------------------------------------------------------------------
# The structure (spec 1.0.0). Returns "/path: problem" strings; none when the document is valid.

sub spec_errors {
    my ($meta) = @_;
    my @e;
    my $err = sub { push @e, "$_[0]: $_[1]" };
    # A String or a List of them: the spec lets a consumer take a String as a List of one.
    my $list_of = sub {
        my ($path, $v, $pred, $what, $nonempty) = @_;
        if (is_list($v)) {
            $err->($path, "an empty list") if $nonempty && !@$v;
            for my $i (0 .. $#$v) {
                $err->("$path/$i", "not a $what") unless $pred->($v->[$i]);
            }
        } elsif (!$pred->($v)) {
            $err->($path, "not a $what or a list of them");
        }
    };
    # Keys of a map: the known ones, or custom ones (x_...).
    my $keys = sub {
        my ($path, $map, @known) = @_;
        my %known = map { $_ => 1 } @known;
        for my $k (sort keys %$map) {
            $err->("$path/$k", 'an unknown key (custom keys start with x_)') unless $known{$k} || is_custom_key($k);
        }
    };

    return ('/: not a map') unless is_map($meta);
    $keys->('', $meta, qw(name abstract version maintainer license provides meta-spec description
                          generated_by tags no_index prereqs release_status resources));
    for my $k (qw(name abstract version maintainer license provides meta-spec)) {
        $err->("/$k", 'a required key is missing') unless exists $meta->{$k};
    }

    $err->('/name', 'not a Term') if exists $meta->{name} && !is_term($meta->{name});
    for my $k (qw(abstract description generated_by)) {
        $err->("/$k", 'not a String') if exists $meta->{$k} && !is_string($meta->{$k});
    }
    $err->('/version', 'not a semantic version') if exists $meta->{version} && !is_version($meta->{version});
    $list_of->('/maintainer', $meta->{maintainer}, \&is_string, 'String', 1) if exists $meta->{maintainer};

    if (exists $meta->{license}) {
        my $l = $meta->{license};
        if (is_map($l)) {
            $err->('/license', 'an empty map') unless %$l;
            for my $name (sort keys %$l) {
                $err->("/license/$name", 'not a URI') unless is_uri($l->{$name});
            }
        } else {
            $list_of->('/license', $l, sub { is_json_string($_[0]) && $LICENSES{$_[0]} }, 'License String', 1);
        }
    }

    if (exists $meta->{'meta-spec'}) {
        my $ms = $meta->{'meta-spec'};
        if (!is_map($ms)) {
            $err->('/meta-spec', 'not a map');
        } else {
            $keys->('/meta-spec', $ms, qw(version url));
            if (!exists $ms->{version}) {
                $err->('/meta-spec/version', 'a required key is missing');
            } elsif (!is_json_string($ms->{version}) || $ms->{version} ne '1.0.0') {
                $err->('/meta-spec/version', 'not 1.0.0, the version this check implements');
            }
            $err->('/meta-spec/url', 'not a URI') if exists $ms->{url} && !is_uri($ms->{url});
        }
    }

    if (exists $meta->{provides}) {
        my $p = $meta->{provides};
        if (!is_map($p) || !%$p) {
            $err->('/provides', 'not a map of at least one extension');
        } else {
            for my $ext (sort keys %$p) {
                my $path = "/provides/$ext";
                $err->($path, 'the name is not a Term') unless is_term($ext);
                my $x = $p->{$ext};
                if (!is_map($x)) { $err->($path, 'not a map'); next; }
                $keys->($path, $x, qw(file version abstract docfile));
                for my $k (qw(file version)) {
                    $err->("$path/$k", 'a required key is missing') unless exists $x->{$k};
                }
                $err->("$path/file", 'not a relative unix path') if exists $x->{file} && !is_path($x->{file});
                $err->("$path/docfile", 'not a relative unix path') if exists $x->{docfile} && !is_path($x->{docfile});
                $err->("$path/version", 'not a semantic version') if exists $x->{version} && !is_version($x->{version});
                $err->("$path/abstract", 'not a String') if exists $x->{abstract} && !is_string($x->{abstract});
            }
        }
    }

    $list_of->('/tags', $meta->{tags}, \&is_tag, 'Tag', 0) if exists $meta->{tags};

    if (exists $meta->{no_index}) {
        my $n = $meta->{no_index};
        if (!is_map($n)) {
            $err->('/no_index', 'not a map');
        } else {
            $keys->('/no_index', $n, qw(file directory));
            for my $k (qw(file directory)) {
                $list_of->("/no_index/$k", $n->{$k}, \&is_path, 'relative unix path', 0) if exists $n->{$k};
            }
        }
    }

    if (exists $meta->{prereqs}) {
        my $pr = $meta->{prereqs};
        if (!is_map($pr)) {
            $err->('/prereqs', 'not a map');
        } else {
            for my $phase (sort keys %$pr) {
                my $path = "/prereqs/$phase";
                if (!$PHASES{$phase} && !is_custom_key($phase)) {
                    $err->($path, 'not a phase (configure, build, test, runtime, develop)');
                    next;
                }
                my $rels = $pr->{$phase};
                if (!is_map($rels)) { $err->($path, 'not a map'); next; }
                for my $rel (sort keys %$rels) {
                    if (!$RELATIONS{$rel} && !is_custom_key($rel)) {
                        $err->("$path/$rel", 'not a relationship (requires, recommends, suggests, conflicts)');
                        next;
                    }
                    my $set = $rels->{$rel};
                    if (!is_map($set)) { $err->("$path/$rel", 'not a map'); next; }
                    for my $name (sort keys %$set) {
                        $err->("$path/$rel/$name", 'the name is not a Term') unless is_term($name);
                        $err->("$path/$rel/$name", 'not a version range') unless is_version_range($set->{$name});
                    }
                }
            }
        }
    }

    if (exists $meta->{release_status}) {
        my $s = $meta->{release_status};
        $err->('/release_status', 'not stable, testing or unstable') unless is_json_string($s) && $RELEASE_STATUS{$s};
    }

    if (exists $meta->{resources}) {
        my $r = $meta->{resources};
        if (!is_map($r)) {
            $err->('/resources', 'not a map');
        } else {
            $keys->('/resources', $r, qw(homepage bugtracker repository));
            $err->('/resources/homepage', 'not a URI') if exists $r->{homepage} && !is_uri($r->{homepage});
            if (exists $r->{bugtracker}) {
                my $b = $r->{bugtracker};
                if (!is_map($b)) {
                    $err->('/resources/bugtracker', 'not a map');
                } else {
                    $keys->('/resources/bugtracker', $b, qw(web mailto));
                    $err->('/resources/bugtracker/web', 'not a URI') if exists $b->{web} && !is_uri($b->{web});
                    $err->('/resources/bugtracker/mailto', 'not an email address') if exists $b->{mailto} && !is_email($b->{mailto});
                }
            }
            if (exists $r->{repository}) {
                my $rp = $r->{repository};
                if (!is_map($rp)) {
                    $err->('/resources/repository', 'not a map');
                } else {
                    $keys->('/resources/repository', $rp, qw(url web type));
                    for my $k (qw(url web)) {
                        $err->("/resources/repository/$k", 'not a URI') if exists $rp->{$k} && !is_uri($rp->{$k});
                    }
                    $err->('/resources/repository/type', 'not a lower-case String')
                        if exists $rp->{type} && !(is_string($rp->{type}) && $rp->{type} !~ /\p{Upper}/);
                }
            }
        }
    }
    return @e;
}

# ---------------------------------------------------------------------------------------------
# META.json

my $meta_text = slurp("$root/META.json");
my $meta = defined $meta_text ? eval { JSON::PP->new->utf8->decode($meta_text) } : undef;
check(is_map($meta), 'META.json is a JSON object', $@ || 'no META.json at the root');
$meta = {} unless is_map($meta);
# A fresh copy for each use: the checks below may use values as numbers, which changes their flags.
my $fresh = sub { my $m = eval { JSON::PP->new->utf8->decode($meta_text // '') }; is_map($m) ? $m : {} };

my @errors = spec_errors($fresh->());
check(!@errors, 'META.json is valid against the PGXN Meta Spec 1.0.0', @errors);

# The settings of an extension's control file (name = 'value' lines).
# The control file of extension $ext: at the root (id_gen) or in companions/ (its companions).
sub control_of {
    my ($ext) = @_;
    my %c;
    my $file = -f "$root/$ext.control" ? "$root/$ext.control" : "$root/companions/$ext.control";
    for my $line (split /\n/, slurp($file) // '') {
        $c{$1} = $2 if $line =~ /^\s*(\w+)\s*=\s*'([^']*)'/;
    }
    return %c;
}
my %control = control_of('id_gen');
my $ext_version = $control{default_version} // '(none)';

check(($meta->{name} // '') eq 'id_gen', 'META.json names the distribution id_gen', "name: " . ($meta->{name} // 'missing'));
check(($meta->{version} // '') eq $ext_version, "META.json's version is id_gen.control's default_version ($ext_version)",
      'version: ' . ($meta->{version} // 'missing'));

# provides: every extension of the repository (a control file at the root, and the companion
# extensions' in companions/), with its version; every file named exists, and `file` is the
# extension's control file.
my @controls = map { m{/([^/]+)\.control\z} ? $1 : () } glob("$root/*.control"), glob("$root/companions/*.control");
my $provides = is_map($meta->{provides}) ? $meta->{provides} : {};
check(join(',', sort keys %$provides) eq join(',', sort @controls),
      'provides lists the extensions of the repository: ' . join(', ', sort @controls),
      'provides: ' . join(', ', sort keys %$provides));
for my $ext (sort keys %$provides) {
    my $x = is_map($provides->{$ext}) ? $provides->{$ext} : {};
    my %c = control_of($ext);
    check(defined $c{default_version} && ($x->{version} // '') eq $c{default_version},
          "provides/$ext/version is $ext.control's default_version",
          "provides: " . ($x->{version} // 'missing') . ", control: " . ($c{default_version} // 'missing'));
    for my $k (grep { exists $x->{$_} } qw(file docfile)) {
        check(-f "$root/$x->{$k}", "provides/$ext/$k ($x->{$k}) is a file of the repository");
    }
    check(($x->{file} // '') =~ m{(?:\A|/)\Q$ext\E\.control\z}, "provides/$ext/file is $ext.control",
          'file: ' . ($x->{file} // 'missing'));
}
if (is_map($meta->{no_index})) {
    for my $k (qw(file directory)) {
        my $v = $meta->{no_index}{$k} // next;
        for my $path (is_list($v) ? @$v : ($v)) {
            check($k eq 'file' ? -f "$root/$path" : -d "$root/$path", "no_index/$k $path exists in the repository");
        }
    }
}

# prereqs: the oldest server the test command tests by default, and the extensions the control
# file requires.
my $runtime = eval { $fresh->()->{prereqs}{runtime}{requires} } // {};
my ($oldest) = sort { $a <=> $b } split ' ', ((slurp("$root/scripts/layers/env.sh") // '') =~ /IDGEN_PG_VERSIONS=\$\{IDGEN_PG_VERSIONS-([0-9 ]+)\}/ ? $1 : '');
check(defined $oldest && ($runtime->{PostgreSQL} // '') =~ /\A(?:>=\s*)?\Q$oldest\E\.0\.0\z/,
      'prereqs require PostgreSQL from ' . ($oldest // '?') . '.0.0, the oldest version the test command tests',
      'PostgreSQL: ' . ($runtime->{PostgreSQL} // 'missing'));
for my $req (split /\s*,\s*/, $control{requires} // '') {
    check(exists $runtime->{$req}, "prereqs/runtime/requires lists $req, which id_gen.control requires");
}

# The license: META.json's, the LICENSE file, the README's line.
my $license = slurp("$root/LICENSE") // '';
(my $license_flat = $license) =~ s/\s+/ /g;
check(($meta->{license} // '') eq 'postgresql', 'META.json declares the PostgreSQL License (postgresql)');
check($license =~ /\APostgreSQL License\n/ && $license =~ /^Copyright \(c\) 2026, The id_gen developers$/m,
      'LICENSE is the PostgreSQL License, copyright 2026 The id_gen developers');
check(index($license_flat, 'Permission to use, copy, modify, and distribute this software and its documentation for any purpose, without fee, and without a written agreement is hereby granted, provided that the above copyright notice and this paragraph and the following two paragraphs appear in all copies.') >= 0
      && index($license_flat, 'IN NO EVENT SHALL THE ID_GEN DEVELOPERS BE LIABLE TO ANY PARTY') >= 0
      && index($license_flat, 'THE SOFTWARE PROVIDED HEREUNDER IS ON AN "AS IS" BASIS') >= 0,
      "LICENSE has the license's grant and both disclaimers");
my $readme = slurp("$root/README.md") // '';
check($readme =~ /PostgreSQL License[^\n]*\]\(LICENSE\)/, 'README.md names the PostgreSQL License and links LICENSE');

# CHANGELOG.md: "## <version> — <YYYY-MM-DD or unreleased>" per version, newest first; one for
# the current version and one, dated, for every released version (an install script frozen at
# the root); an unreleased version is not published as stable.
my $changelog = slurp("$root/CHANGELOG.md") // '';
utf8::decode($changelog);
my @entries = $changelog =~ /^## (\S+) \x{2014} (unreleased|\d{4}-\d{2}-\d{2})$/mg;
my %entry = @entries;
my @order = @entries[grep { $_ % 2 == 0 } 0 .. $#entries];
check(exists $entry{$ext_version}, "CHANGELOG.md has an entry for $ext_version", 'entries: ' . join(', ', @order));
check(@order && $order[0] eq $ext_version, "CHANGELOG.md starts with $ext_version");
for my $released (sort map { m{/id_gen--([^-]+)\.sql\z} ? $1 : () } glob("$root/id_gen--*.sql")) {
    next if $released eq $ext_version;
    check(($entry{$released} // '') =~ /\A\d{4}-/, "CHANGELOG.md has a dated entry for the released $released");
}
check(($entry{$ext_version} // '') ne 'unreleased' || ($meta->{release_status} // 'stable') ne 'stable',
      "an unreleased $ext_version is not marked stable in META.json",
      'release_status: ' . ($meta->{release_status} // 'missing (stable)'));

# ---------------------------------------------------------------------------------------------
# Negative controls: each mutation of META.json breaks one rule of the spec, which must be
# reported at its path.

my @mutations = (
    ['/name',                 'without a name',                      sub { delete $_[0]{name} }],
    ['/name',                 'with a one-character name',                sub { $_[0]{name} = 'x' }],
    ['/version',              'with version 0.2 (not semantic)',          sub { $_[0]{version} = '0.2' }],
    ['/version',              'with the version as a number',                 sub { $_[0]{version} = 1 }],
    ['/license',              'with license "PostgreSQL" (not a License String)', sub { $_[0]{license} = 'PostgreSQL' }],
    ['/license/PostgreSQL',   'with a license mapped to a non-URI',          sub { $_[0]{license} = { PostgreSQL => 'LICENSE' } }],
    ['/maintainer',           'with an empty maintainer list',                       sub { $_[0]{maintainer} = [] }],
    ['/homepage',             'with an unknown top-level key',            sub { $_[0]{homepage} = 'https://example.com/' }],
    ['/provides',             'with an empty provides',                      sub { $_[0]{provides} = {} }],
    ['/provides/id_gen/version', 'with an extension version v0.2.0',      sub { $_[0]{provides}{id_gen}{version} = 'v0.2.0' }],
    ['/provides/id_gen/file', 'with an extension without its file',       sub { delete $_[0]{provides}{id_gen}{file} }],
    ['/provides/id_gen/file', 'with an absolute file path',               sub { $_[0]{provides}{id_gen}{file} = '/id_gen.control' }],
    ['/meta-spec/version',    'with meta-spec 2.0.0',                     sub { $_[0]{'meta-spec'}{version} = '2.0.0' }],
    ['/meta-spec',            'without meta-spec',                   sub { delete $_[0]{'meta-spec'} }],
    ['/prereqs/install',      'with a prereq phase "install"',            sub { $_[0]{prereqs}{install} = { requires => { PostgreSQL => '15.0.0' } } }],
    ['/prereqs/runtime/needs', 'with a prereq relationship "needs"',      sub { $_[0]{prereqs}{runtime}{needs} = { plpgsql => 0 } }],
    ['/prereqs/runtime/requires/PostgreSQL', 'with a version range ">= 15"', sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '>= 15' }],
    ['/prereqs/runtime/requires/PostgreSQL', 'with a version range "~> 15.0.0"', sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '~> 15.0.0' }],
    ['/release_status',       'with release_status "beta"',               sub { $_[0]{release_status} = 'beta' }],
    ['/tags/0',               'with a tag holding a slash',                  sub { $_[0]{tags} = ['ulid/uuid'] }],
    ['/resources/homepage',   'with a homepage without a scheme',         sub { $_[0]{resources}{homepage} = 'pgxn.org/dist/id_gen/' }],
    ['/resources/repository/type', 'with a repository type "Git"',        sub { $_[0]{resources}{repository} = { url => 'https://example.com/id_gen.git', type => 'Git' } }],
    ['/resources/bugtracker/mailto', 'with a bug address without @',      sub { $_[0]{resources}{bugtracker} = { mailto => 'bugs' } }],
    ['/no_index/directory/0', 'with a no_index path through ..',             sub { $_[0]{no_index} = { directory => ['../test'] } }],
);
for my $m (@mutations) {
    my ($path, $what, $mutate) = @$m;
    my $copy = $fresh->();
    $mutate->($copy);
    my @found = spec_errors($copy);
    check((grep { index($_, "$path: ") == 0 } @found) && @found == 1,
          "the check rejects META.json $what, at $path only", @found ? @found : 'nothing reported');
}

# Positive controls: forms the spec allows that META.json does not use.
my $json = JSON::PP->new->utf8;
my %allowed = (
    'a maintainer as one String, licenses as a map' =>
        '{"maintainer": "A. Maintainer <a@example.com>", "license": {"PostgreSQL": "https://www.postgresql.org/about/licence"}}',
    'a list of two licenses, custom keys, a pre-release version' =>
        '{"license": ["postgresql", "mit"], "x_ci": {"any": ["thing"]}, "version": "1.0.0-beta.2", "provides": {"pair": {"file": "sql/pair.sql", "version": "1.0.0-beta.2", "x_note": 1}}}',
    'version ranges with operators and the number 0' =>
        '{"prereqs": {"runtime": {"requires": {"PostgreSQL": ">= 1.2.0, != 1.5.0, < 2.0.0", "plpgsql": 0}, "recommends": {"pgTAP": "0"}}, "x_phase": {"requires": {"abc": "1.0.0"}}}}',
    'resources with a repository and a bug tracker' =>
        '{"resources": {"homepage": "https://example.com/", "bugtracker": {"web": "https://example.com/issues", "mailto": "bugs@example.com"}, "repository": {"url": "git://example.com/pair.git", "web": "https://example.com/pair", "type": "git"}, "x_chat": "https://example.com/chat"}}',
);
for my $what (sort keys %allowed) {
    my $copy = $fresh->();
    my $patch = $json->decode($allowed{$what});
    $copy->{$_} = $patch->{$_} for keys %$patch;
    my @found = spec_errors($copy);
    check(!@found, "the check accepts $what", @found);
}

print "# $tests checks\n";
