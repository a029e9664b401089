# fish completion for hmn

set -l commands free ps watch run

complete -c hmn -f
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a free -d 'Device-wide memory, one row per GPU'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a ps -d 'Per-process GPU memory'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Free and ps again every interval'
complete -c hmn -n "not __fish_seen_subcommand_from $commands" -a run -d 'Run a command, report its peak GPU memory'

complete -c hmn -l json -d 'Print JSON instead of a table'
complete -c hmn -l format -x -a 'table json csv prometheus' -d 'Output format'
complete -c hmn -s o -l output -r -F -d 'Write to a file, atomically'
complete -c hmn -l backend -x -a 'nvml nvidia-smi drm dxgi pdh metal' -d 'Sources to use, in order'
complete -c hmn -s v -l verbose -d 'Say which sources were tried and why'
complete -c hmn -s h -l help -d 'Print help'
complete -c hmn -s V -l version -d 'Print the version'

complete -c hmn -l device -x -d 'Only these GPUs (indices or UUIDs)'
complete -c hmn -n "not __fish_seen_subcommand_from run" -l no-header -d 'Leave out the header line'
complete -c hmn -n "not __fish_seen_subcommand_from run" -l bytes -d 'Exact byte counts'

complete -c hmn -n "not __fish_seen_subcommand_from ps watch run" -s l -l long -d 'Add utilisation, temperature and power'
complete -c hmn -n "__fish_seen_subcommand_from watch" -s l -l long -d 'Add utilisation, temperature and power'
complete -c hmn -n "not __fish_seen_subcommand_from ps watch run" -l need -x -d 'Exit 4 unless a GPU has this much free'

complete -c hmn -n "__fish_seen_subcommand_from ps watch" -l pid -x -a '(__fish_complete_pids)' -d 'Only these process IDs'
complete -c hmn -n "__fish_seen_subcommand_from ps watch" -l sort -x -a 'vram pid name device' -d 'Order of the rows'

complete -c hmn -n "__fish_seen_subcommand_from watch run" -l interval -x -d 'Time between samples (250ms, 1s, 2m)'
complete -c hmn -n "__fish_seen_subcommand_from watch" -l count -x -d 'Stop after N samples'
complete -c hmn -n "__fish_seen_subcommand_from watch" -l duration -x -d 'Stop after this long'
complete -c hmn -n "__fish_seen_subcommand_from run; and __fish_seen_argument -- --" -a '(__fish_complete_subcommand --fcs-skip=3)'
