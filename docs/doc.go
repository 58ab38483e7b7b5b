// Package docs holds Taskwire's documentation, one Markdown page per
// audience and topic; it has no code. Its test checks that every relative
// link of the README, CONTRIBUTING.md, bench/README.md and these pages
// names a file that exists, and a heading that exists in it, so that
// moving a page or renaming a section cannot leave a reader at a dead end.
package docs
