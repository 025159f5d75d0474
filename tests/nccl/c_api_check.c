/* histtune::nccl's C API from C: argument errors come back as codes with a message before
 * anything is launched or NCCL is asked, so this runs without a GPU. Exit 0 when all hold. */
#include <histtune/nccl.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(int cond, const char* what) {
  if (!cond) {
    fprintf(stderr, "FAILED: %s (last error: %s)\n", what, histtune_nccl_last_error());
    ++failures;
  }
}

int main(void) {
  uint64_t* fake = (uint64_t*)(uintptr_t)0x1000; /* never dereferenced: rejected before use */
  ncclComm_t comm = (ncclComm_t)(uintptr_t)0x2000; /* never asked: rejected before use */
  uint32_t first = 99, count = 99;
  histtune_status s =
      histtune_nccl_histogram(0, 0, fake, 100, 256, 0, 0, NULL, fake, 0, NULL, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "a null comm is an invalid argument");
  expect(strstr(histtune_nccl_last_error(), "comm is null") != NULL, "the message names comm");
  s = histtune_nccl_histogram(12, 0, fake, 100, 256, 0, 0, NULL, fake, 0, comm, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "an unknown sample type is an invalid argument");
  expect(strstr(histtune_nccl_last_error(), "sample type code 12") != NULL, "names the code");
  s = histtune_nccl_histogram(0, 3, fake, 100, 256, 0, 0, NULL, fake, 0, comm, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "an unknown binning is an invalid argument");
  s = histtune_nccl_histogram(0, 0, fake, 100, 256, 0, 0, NULL, fake, 2, comm, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "an unknown combine is an invalid argument");
  expect(strstr(histtune_nccl_last_error(), "Combine value 2") != NULL, "names the combine");
  s = histtune_nccl_histogram(0, 0, fake, 100, 0, 0, 0, NULL, fake, 0, comm, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "num_bins = 0 is an invalid argument");
  s = histtune_nccl_histogram(0, 0, fake, 100, 256, 0, 0, NULL, NULL, 0, comm, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "null counts is an invalid argument");
  s = histtune_nccl_histogram(0, 2, fake, 100, 4, 0, 0, NULL, fake, 0, comm, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "range binning without levels is an invalid argument");
  s = histtune_nccl_combine_counts(fake, 8, HISTTUNE_NCCL_ALL_REDUCE, NULL, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "combine_counts: a null comm is an invalid argument");
  s = histtune_nccl_bin_slice(255, 1, 2, &first, &count);
  expect(s == HISTTUNE_OK && first == 127 && count == 128, "rank 1 of 2 holds bins 127..254");
  expect(strcmp(histtune_nccl_last_error(), "") == 0, "no message after a success");
  s = histtune_nccl_bin_slice(255, 2, 2, &first, &count);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "rank 2 of 2 is an invalid argument");
  if (failures == 0) printf("histtune::nccl C API: every check held\n");
  return failures == 0 ? 0 : 1;
}
