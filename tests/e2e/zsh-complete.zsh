#!/usr/bin/env zsh
# zsh-complete.zsh DIR LINE: the candidates zsh's completion system offers
# for LINE, with the completion function in DIR, one per line. Runs an
# interactive zsh on a pseudo-terminal and records what reaches compadd.
zmodload zsh/zpty || exit 77
dir=$1 line=$2 out=${TMPDIR:-/tmp}/zsh-complete.$$
: >$out

# Waits for a line of output holding MARKER; the typed command holds it
# split by quotes, so only the command's output matches.
wait_for() {
	local buf i
	for i in {1..100}; do
		while zpty -r -t z buf 2>/dev/null; do
			[[ $buf == *$1* ]] && return 0
		done
		sleep 0.05
	done
	print -u2 "zsh-complete: timed out waiting for $1"
	return 1
}

zpty -b z zsh -f -i
zpty -w z "fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; echo ready''one"
wait_for readyone || exit 1
zpty -w z "compadd() { local -a m; builtin compadd -O m \"\$@\"; print -rl -- \$m >>$out; builtin compadd \"\$@\"; }; bindkey '^I' complete-word; echo ready''two"
wait_for readytwo || exit 1
zpty -w -n z "$line"$'\t'
zpty -w z $'\x15echo fin''ished'
wait_for finished || exit 1
zpty -d z
sort -u $out
rm -f $out
