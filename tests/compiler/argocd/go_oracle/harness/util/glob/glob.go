// Package glob is Argo CD's util/glob.Match without its LRU cache, singleflight and logging
// (which do not change the answer): compile with gobwas/glob; a compile error answers false.
package glob

import "github.com/gobwas/glob"

func Match(pattern, text string, separators ...rune) bool {
	compiled, err := glob.Compile(pattern, separators...)
	if err != nil {
		return false
	}
	return compiled.Match(text)
}
