package tenantarchive

// SmallPages has exports read pages of 2 rows and imports insert batches
// of 3, so that a test's few rows span many of each; the returned
// function restores the sizes.
func SmallPages() func() {
	p, b := pageSize, batchSize
	pageSize, batchSize = 2, 3
	return func() { pageSize, batchSize = p, b }
}
