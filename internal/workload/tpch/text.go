package tpch

import "sync"

// The text of comments (clause 4.2.2.10). dbgen generates once a pool of
// 300 MiB of pseudo-text sentences from its stream 5, then takes every
// comment as a substring of the pool: an offset uniform in
// 0..(pool size - the comment's maximum length) and a length uniform in
// min..max, two draws from the comment's own stream. The pool is a pure
// function of the grammar, so it is built once per process and shared by
// every generator (read only).

// textPoolSize is dbgen's TEXT_POOL_SIZE.
const textPoolSize = 300 * 1024 * 1024

var (
	poolOnce sync.Once
	pool     []byte
)

// textPool is the pool, built on first use (about a second; 300 MiB).
// WarmTextPool builds the comments' text pool now rather than at the first
// load (it is built once per process), for callers that time loads.
func WarmTextPool() { textPool() }

func textPool() []byte {
	poolOnce.Do(func() { pool = buildPool(textPoolSize) })
	return pool
}

// buildPool generates size bytes of sentences separated by one blank, the
// last cut at size (dbgen's dbg_text initialisation).
func buildPool(size int) []byte {
	buf := poolMemory(size + maxSentence)[:0]
	s := newStream(seeds[sText].seed, seeds[sText].boundary)
	for len(buf) < size {
		buf = appendSentence(buf, &s)
		buf = append(buf, ' ')
	}
	return buf[:size:size]
}

// maxSentence bounds a sentence (dbgen's MAX_SENT_LEN).
const maxSentence = 256

// appendSentence appends one sentence: a grammar picked, then its phrases,
// words separated by blanks and the terminator right after the last word
// (txt_sentence).
func appendSentence(buf []byte, s *stream) []byte {
	form := grammar.words[grammar.pick(s)]
	for i := 0; i < len(form); i += 2 { // tokens are single letters separated by blanks
		switch form[i] {
		case 'N':
			buf = appendNounPhrase(buf, s)
		case 'V':
			buf = appendVerbPhrase(buf, s)
		case 'P':
			buf = append(buf, prepositions.words[prepositions.pick(s)]...)
			buf = append(buf, " the "...)
			buf = appendNounPhrase(buf, s)
		case 'T':
			buf = buf[:len(buf)-1] // over the blank after the last word
			buf = append(buf, terminators.words[terminators.pick(s)]...)
		}
	}
	return buf
}

// appendNounPhrase appends a noun phrase and a blank (txt_np).
func appendNounPhrase(buf []byte, s *stream) []byte {
	form := nounPhrases.words[nounPhrases.pick(s)]
	return appendPhrase(buf, s, form)
}

// appendVerbPhrase appends a verb phrase and a blank (txt_vp).
func appendVerbPhrase(buf []byte, s *stream) []byte {
	form := verbPhrases.words[verbPhrases.pick(s)]
	return appendPhrase(buf, s, form)
}

// appendPhrase appends a word for each part of speech of form, each
// followed by its punctuation, if any, and a blank.
func appendPhrase(buf []byte, s *stream, form string) []byte {
	for i := 0; i < len(form); {
		var d *dist
		switch form[i] {
		case 'A':
			d = articles
		case 'J':
			d = adjectives
		case 'D':
			d = adverbs
		case 'N':
			d = nouns
		case 'V':
			d = verbs
		case 'X':
			d = auxiliaries
		}
		buf = append(buf, d.words[d.pick(s)]...)
		i++
		if i < len(form) && form[i] != ' ' {
			buf = append(buf, form[i])
			i++
		}
		buf = append(buf, ' ')
		i++ // the blank between tokens
	}
	return buf
}

// text draws a comment of average length avg from s (dbgen's TEXT macro:
// lengths from 0.4 avg to 1.6 avg, truncated as dbgen truncates them).
type textLen struct{ min, max int64 }

func lengths(avg int) textLen {
	return textLen{int64(float64(avg) * 0.4), int64(float64(avg) * 1.6)}
}

// The comment lengths of clause 4.2.3 (dbgen's *_CMNT_LEN).
var (
	partComment     = lengths(14)
	partsuppComment = lengths(124)
	supplierComment = lengths(63)
	customerComment = lengths(73)
	orderComment    = lengths(49)
	lineComment     = lengths(27)
	nationComment   = lengths(72)
	regionComment   = lengths(72)
	addressLen      = lengths(25) // V_STR, not text: see appendRandomString
)

// comment is the comment drawn from s: a slice of the pool, not a copy.
func comment(p []byte, s *stream, l textLen) []byte {
	off := s.unifInt(0, textPoolSize-l.max)
	n := s.unifInt(l.min, l.max)
	return p[off : off+n]
}

// alphaNum are the characters of random strings (dbgen's a_rnd).
const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// appendRandomString appends a string of length uniform in l, of random
// characters, 6 bits of a draw per character and a draw per 5 characters
// (dbgen's a_rnd, for addresses: clause 4.2.2.7's V-string).
func appendRandomString(buf []byte, s *stream, l textLen) []byte {
	n := s.unifInt(l.min, l.max)
	var bits int64
	for i := int64(0); i < n; i++ {
		if i%5 == 0 {
			bits = s.unifInt(0, maxLong)
		}
		buf = append(buf, alphaNum[bits&0x3f])
		bits >>= 6
	}
	return buf
}
