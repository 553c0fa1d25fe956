#!/bin/zsh -f
# zsh-complete.zsh FUNCDIR LINE: print, one a line, the matches zsh's completion
# offers at the end of LINE, with the completion functions of FUNCDIR first in
# $fpath.  An interactive zsh in a pseudo-terminal (zpty) gets LINE and a Tab;
# its compadd is wrapped to write the matches it adds to a file.
emulate -L zsh
zmodload zsh/zpty || exit 1
local dir=$1 line=$2 out=${TMPDIR:-/tmp}/zsh-complete.$$ got i

# the shell's own echo of a command must not look like its output: '<'ok'>'
sync() {
	zpty -w z "$1; print -r -- '<'ok'>'"
	zpty -r -m z got '*<ok>*' || { print -u2 "zsh-complete: no answer to: $1"; exit 1 }
}

: >$out
zpty -b z TERM=dumb zsh -f -i
sync "PS1= PROMPT_EOL_MARK= OUT=${(q)out}; fpath=(${(q)dir} \$fpath)"
# Tab completes, then says so in a file: nothing more is typed before that,
# since input waiting makes zsh cut completion short
sync 'autoload -Uz compinit && compinit -u -D'
sync 'zc-complete() { zle complete-word; : >$OUT.done }; zle -N zc-complete; bindkey "^I" zc-complete'
# (compadd -O fills a global array only)
sync 'compadd() {
	typeset -ga __zc_matches=()
	if (( ! ${@[(I)-[OD]*]} )); then
		builtin compadd -O __zc_matches "$@"; print -rl -- $__zc_matches >>$OUT
	fi
	builtin compadd "$@"
}'
# type only once the line editor has printed its prompt, so that it reads the
# line itself (the echo of this command shows '<'rdy'>', not the prompt)
zpty -w z "PS1='<'rdy'>'"
zpty -r -m z got '*<rdy>*' || { print -u2 "zsh-complete: no prompt"; exit 1 }
zpty -w -n z "$line"$'\t'
for ((i = 0; i < 1200; i++)); do [[ -e $out.done ]] && break; sleep 0.05; done
[[ -e $out.done ]] || print -u2 "zsh-complete: no completion of '$line' within 60 s"
sync $'\C-u:'
zpty -w z 'exit'
while zpty -r z got; do :; done
zpty -d z
grep -v '^$' $out | sort -u
rm -f $out $out.done
