// Package utfutil stands in for github.com/TomOnTime/utfutil (only ReadFile is used).
package utfutil

import "os"

type EncodingHint int

const UTF8 EncodingHint = 0

func ReadFile(name string, _ EncodingHint) ([]byte, error) { return os.ReadFile(name) }
