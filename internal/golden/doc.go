// Package golden is the golden-file check the renderers' tests share: a
// test's output compared byte for byte with a file in testdata/, and the
// -update flag that rewrites the files instead (read the change by eye
// before committing it). It is imported by tests only: importing it
// defines the test binary's -update flag.
package golden
