/* The C API from C: argument errors come back as codes with a message, before anything is
 * launched, so this runs on machines without a GPU too. Exit 0 when every check holds. */
#include <histtune/histtune.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(int cond, const char* what) {
  if (!cond) {
    fprintf(stderr, "FAILED: %s (last error: %s)\n", what, histtune_last_error());
    ++failures;
  }
}

int main(void) {
  uint32_t* fake = (uint32_t*)(uintptr_t)0x1000; /* never dereferenced: rejected before use */
  expect(strcmp(histtune_last_configuration(), "") == 0, "no configuration before a success");
  expect(histtune_last_unverified() == 0, "nothing unverified before a success");
  expect(strcmp(histtune_last_detail(), "") == 0, "no detail before a success");
  histtune_status s = histtune_histogram_direct_u8((const uint8_t*)fake, 100, 0, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "num_bins = 0 is an invalid argument");
  expect(strstr(histtune_last_error(), "num_bins") != NULL, "the message names num_bins");
  s = histtune_histogram_even_f32((const float*)fake, 10, 16, 2.0f, 1.0f, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "lower >= upper is an invalid argument");
  expect(strstr(histtune_last_error(), "lower < upper") != NULL, "the message names the bounds");
  s = histtune_histogram_even_u32(NULL, 5, 16, 0, 16, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "null samples with n > 0 is an invalid argument");
  s = histtune_histogram_direct_i32((const int32_t*)fake, 10, 16, NULL, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "null counts is an invalid argument");
  s = histtune_histogram_direct_u16((const uint16_t*)fake, 1ull << 33, 16, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "n above 2^32 - 1 is an invalid argument");
  s = histtune_histogram_even_f32((const float*)fake, 10, 16, NAN, 1.0f, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "a NaN bound is an invalid argument");
  expect(strstr(histtune_last_error(), "bounds that are numbers") != NULL, "the message says NaN");
  s = histtune_histogram_even_f32((const float*)fake, 10, 16, 0.0f, INFINITY, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "an infinite bound is an invalid argument");
  expect(strstr(histtune_last_error(), "finite bounds") != NULL, "the message says finite");
  s = histtune_histogram_even_i32((const int32_t*)fake, 10, 16, 0, (int64_t)1 << 54, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "bounds beyond 2^53 are an invalid argument");
  s = histtune_histogram_direct_u32((const uint32_t*)(uintptr_t)0x1002, 10, 16, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "misaligned u32 samples are an invalid argument");
  expect(strstr(histtune_last_error(), "not aligned") != NULL, "the message says not aligned");
  /* Range binning: the levels' checks that need no device. */
  s = histtune_histogram_range_f32((const float*)fake, 10, 16, NULL, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "null levels with n > 0 is an invalid argument");
  expect(strstr(histtune_last_error(), "d_levels is null") != NULL, "the message names d_levels");
  s = histtune_histogram_range_u8((const uint8_t*)fake, 10, 0, (const uint8_t*)fake, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "range with num_bins = 0 is an invalid argument");
  s = histtune_histogram_range_u8((const uint8_t*)fake, 10, 256, (const uint8_t*)fake, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "u8 range with 256 bins is an invalid argument");
  expect(strstr(histtune_last_error(), "at most 255 bins") != NULL, "the message says 255 bins");
  s = histtune_histogram_range_i32((const int32_t*)fake, 10, 16, (const int32_t*)(uintptr_t)0x1002,
                                   fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "misaligned i32 levels are an invalid argument");
  s = histtune_histogram_range_u16((const uint16_t*)fake, 10, 16, NULL, NULL, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "null counts with range binning is an invalid argument");
  s = histtune_histogram_range_u32((const uint32_t*)fake, 10, 16, NULL, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "u32 range: null levels is an invalid argument");
  s = histtune_histogram_multichannel_range_u8((const uint8_t*)fake, 10, 4, 3, 16, NULL, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel range: null levels is invalid");
  s = histtune_histogram_multichannel_range_u16((const uint16_t*)fake, 10, 4, 5, 16,
                                                (const uint16_t*)fake, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel range: active > channels is invalid");

  /* Multi-channel: the same argument checks, with the channels. */
  s = histtune_histogram_multichannel_direct_u8((const uint8_t*)fake, 100, 4, 3, 0, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel num_bins = 0 is an invalid argument");
  expect(strstr(histtune_last_error(), "num_bins") != NULL, "the message names num_bins");
  s = histtune_histogram_multichannel_direct_u8((const uint8_t*)fake, 100, 4, 5, 256, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "more active channels than channels is invalid");
  expect(strstr(histtune_last_error(), "active_channels") != NULL,
         "the message names active_channels");
  s = histtune_histogram_multichannel_direct_u16((const uint16_t*)fake, 100, 0, 0, 256, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "zero channels is invalid");
  expect(strstr(histtune_last_error(), "channels") != NULL, "the message names channels");
  s = histtune_histogram_multichannel_direct_u16((const uint16_t*)(uintptr_t)0x1001, 100, 4, 4,
                                                 4096, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "misaligned u16 multi-channel samples are invalid");
  expect(strstr(histtune_last_error(), "not aligned") != NULL, "the message says not aligned");
  s = histtune_histogram_multichannel_direct_u8((const uint8_t*)fake, 100, 4, 3, 256, NULL, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel null counts is invalid");
  s = histtune_histogram_multichannel_even_u8((const uint8_t*)fake, 100, 4, 4, 16, 200, 100,
                                              fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel lower >= upper is invalid");
  expect(strstr(histtune_last_error(), "lower < upper") != NULL, "the message names the bounds");
  s = histtune_histogram_multichannel_even_u16(NULL, 100, 4, 4, 16, 0, 4096, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel null samples with rows > 0 is invalid");
  s = histtune_histogram_multichannel_even_u16((const uint16_t*)fake, 100, 4, 4, 16, 0,
                                               (int64_t)1 << 54, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "multi-channel bounds beyond 2^53 are invalid");
  /* Multi-channel with a row pitch: 10 RGBA u8 pixels a row are 40 bytes. */
  s = histtune_histogram_multichannel_direct_pitched_u8((const uint8_t*)fake, 10, 2, 39, 4, 3, 256,
                                                        fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "a pitch shorter than an image row is invalid");
  expect(strstr(histtune_last_error(), "less than an image row's 40 bytes") != NULL,
         "the message names the row's bytes");
  s = histtune_histogram_multichannel_even_pitched_u16((const uint16_t*)fake, 10, 2, 81, 4, 4, 16,
                                                       0, 100, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "a pitch that is not whole u16 samples is invalid");
  expect(strstr(histtune_last_error(), "not a multiple of the 2-byte") != NULL,
         "the message names the sample size");
  s = histtune_histogram_multichannel_range_pitched_u8((const uint8_t*)fake, 10, 2, 48, 4, 3, 16,
                                                       NULL, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "pitched range: null levels is invalid");
  expect(strstr(histtune_last_error(), "d_levels is null") != NULL, "the message names d_levels");
  s = histtune_histogram_multichannel_direct_pitched_u16((const uint16_t*)fake, (uint64_t)1 << 20,
                                                         (uint64_t)1 << 20, 0, 4, 4, 16, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "row_pixels x num_rows beyond 2^32 - 1 is invalid");
  s = histtune_histogram_multichannel_range_pitched_u16((const uint16_t*)fake, 10, 2, 96, 4, 5, 16,
                                                        (const uint16_t*)fake, fake, 0);
  expect(s == HISTTUNE_INVALID_ARGUMENT, "pitched: active > channels is invalid");
  expect(strcmp(histtune_last_configuration(), "") == 0, "still no configuration after failures");
  printf("%s\n", failures ? "C API checks failed" : "C API checks passed");
  return failures ? 1 : 0;
}
