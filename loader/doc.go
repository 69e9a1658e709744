// Package loader owns the catalogue snapshot: its file format (this comment
// is the specification), the deterministic writer, the strict reader, and
// Load, which turns a file into a ready *engine.Catalogue.
//
// # File
//
//	offset  size  field
//	0       8     magic "VCATSNAP"
//	8       4     format version, uint32 little-endian (see FormatVersion)
//	12      4     flags, uint32, must be 0
//	16      8     C: length of the compressed payload, uint64
//	24      8     U: length of the uncompressed payload, uint64 (at most MaxPayload)
//	32      32    SHA-256 of the uncompressed payload
//	64      C     the payload as one zstd frame (with its own content checksum)
//	64+C          end of file; trailing bytes are an error
//
// The snapshot's identity is the first 8 bytes of the payload digest in hex.
// It changes with any byte of content and is what HTTP ETags are built from.
// The content hash, the SHA-256 of the whole file (engine.Meta.ContentHash,
// set by FromBytes), names the file in a fleet's origin (loader/rollout)
// and in every response's X-Catalogue-Version.
// The writer is deterministic: the same dataset gives the same bytes.
//
// # Payload
//
// A fixed sequence of sections, each
//
//	| tag: 4 ASCII bytes | body length: uint64 | body |
//
// in this order: META LOCL GRUP ENUM SPEC BRND MODL GENR VARI VALS TEXT IMGS
// DEMO "END!". A section out of order, a body that is not consumed exactly,
// or bytes after END! make the file corrupt.
//
// Encodings inside bodies: integers are little-endian and fixed width unless
// marked uvarint (unsigned LEB128, as encoding/binary) or zvarint (zig-zag
// signed varint); str is a uvarint byte length followed by UTF-8 bytes;
// "L x str" is one string per locale, in LOCL order; an array column T[n] is
// n consecutive values of T.
//
//	META  seed u64 | scale f64 (IEEE bits) | synced_at i64 (Unix s) | cdn_base str | generator str |
//	      n_brands u32 | n_models u32 | n_generations u32 | n_variants u32 | n_values u32 |
//	      n_images u32 | n_texts u32 | n_locales u32 | n_groups u32 | n_specs u32 | n_enums u32
//	LOCL  n_locales x str (locale codes; must include "en")
//	GRUP  n_groups x ( key str | L x label str )
//	ENUM  n_enums x ( key str | n_values uvarint | n_values x ( slug str | L x label str ) )
//	SPEC  n_specs x ( key str | group u16 | kind u8 | scale u8 | enum i16 (-1: none) | unit str | module str | L x label str |
//	      L x unit str (v2: the unit as the locale writes it, e.g. PS for hp in de) )
//	BRND  n_brands x ( id u32 | slug str | name str | popularity u16 | wikidata str | country str |
//	      L x localized name str ("" where the locale displays name) | L x alias str (v2: the local spelling search takes) )
//	MODL  n_models x ( id u32 | brand row u32 | name str | slug str )
//	GENR  n_generations x ( id u32 | model row u32 | name str | slug str | year_start u16 | year_end u16 (0: in production); years 1886..2100 )
//	VARI  columns of n_variants each: id u32[] | generation row u32[] | name str[] | fuel u8[] | body u8[] |
//	      drive u8[] | transmission u8[] | power_hp i32[] | torque_nm i32[] | top_speed_kmh i32[] |
//	      accel_0_100 i32[] (tenths of s) | battery_kwh i32[] (tenths) | has_price u8[] | price_eur i32[] |
//	      price_as_of i32[] (days since 1970-01-01) | synced_at i64[] | spec_count uvarint[] | image_count uvarint[]
//	      (i32 columns use -2147483648 for null)
//	VALS  spec values in variant order (VARI's spec_count values per variant), as three streams:
//	      key gaps u8[n_values] (key - previous key of the variant - 1, previous starts at -1) |
//	      values zvarint[n_values] (difference to the previous value of the same key in the file, starting from 0) |
//	      confidences u8[n_values] (percent, 0 = certain)
//	      Neighbouring variants share most keys and many values (one generation's dimensions), so the
//	      streams compress well, and the reader fills the columns sequentially.
//	TEXT  n_texts x str (dictionary of text spec values)
//	IMGS  key u32[n_images] | role u8[n_images] (0 card, 1 hero); a variant's images follow VARI's image_count.
//	      v2: key is the angle of a photograph of the variant's generation and body (engine.ImageAngles);
//	      v1: a random file name stem.
//	DEMO  n uvarint | n x variant row uvarint
//	END!  empty
//
// Rows of each kind are in ascending stable-id order and children are
// contiguous under their parent; engine.New checks that and every other
// cross-reference before a catalogue is served.
//
// # Versions
//
//	1  2026-11  first format.
//	2  2026-11  SPEC: each spec's unit per locale; BRND: a search alias per locale, so bg, el and sr display
//	            the Latin brand name and still find the local spelling. A v1 file reads with English units
//	            everywhere and its localized names as both names and aliases.
//
// A reader accepts only the versions it lists; a file of another version is
// refused with ErrVersion. testdata/vN.snap is a fixture of each version, so
// a change that breaks old files fails a test.
//
// The package imports engine, data/dataset and klauspost/compress.
package loader
