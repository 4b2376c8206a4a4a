module fedgate.dev/oracles/glob

go 1.24

require github.com/gobwas/glob v0.2.3
