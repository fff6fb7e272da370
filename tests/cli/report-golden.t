#!/bin/sh
# Reports byte for byte as they were: every report (text tables and traces,
# TAP, JSON; several files, standard input, 2>&1, an escaped file name) of
# the article's and the regression scenarios, 40 random ones and the
# hand-made ones of fixtures/report-golden/ (wide and narrow columns,
# UTF-8 and bytes to escape, no row), against the sums of the transcripts
# made by the code before the reports were rewritten for speed
# (fixtures/report-golden/make.sh says how to see a difference).
. "$(dirname "$0")/lib.sh"

G="$TOP/tests/cli/fixtures/report-golden"
case $NPG in /*) ;; *) NPG=$(pwd)/$NPG ;; esac

test_expect "the transcripts are made" '
	sh "$G/make.sh" "$NPG" "$TMP/now"
'
while read -r _sum name; do
	test_expect "$name: every report byte for byte as before" "
		cd \"\$TMP/now\" && grep ' $name\$' \"\$G/golden.sha256\" | sha256sum -c --quiet
	"
done <"$G/golden.sha256"

# libsmartcols lays a table out for the terminal when stdout is one; with
# these columns (absolute width hints, no truncation) nothing changes, and
# the table printed here must not either
if command -v script >/dev/null 2>&1; then
	for f in narrow wide awkward; do
		test_expect "$f: the text table on a terminal is the one written to a file" "
			cd \"\$G\" &&
			\"\$NPG\" run -p all $f.npg >\"\$TMP/file.$f\" 2>&1
			COLUMNS=100 script -qec \"'\$NPG' run -p all $f.npg\" /dev/null </dev/null |
				tr -d '\\r' >\"\$TMP/tty.$f\" &&
			cmp \"\$TMP/file.$f\" \"\$TMP/tty.$f\"
		"
	done
else
	test_skip "the text table on a terminal is the one written to a file" "no script(1)"
fi
test_done
