/* test_wire: the wire format's inline accessors (router/wire.h), which
 * every item of every block passes through. */
#include "router/wire.h"
#include "tests/unit/check.h"

#define GUARD 0xA5

/* rt_copy moves exactly n bytes, whatever n up to past its memcpy cut-off
 * and however source and destination are aligned: its small cases copy in
 * overlapping words, which must neither miss nor spill a byte. */
static void test_copy_moves_exactly_n_bytes_at_every_small_size(void)
{
    char from[160], to[160];
    for (int i = 0; i < (int)sizeof from; i++)
        from[i] = (char)(i * 7 + 1);
    int bad = 0;
    for (size_t n = 0; n <= 130; n++)
        for (size_t off = 0; off < 8; off++) {
            memset(to, GUARD, sizeof to);
            rt_copy(to + off + 8, from + (7 - off), n);
            for (size_t i = 0; i < sizeof to; i++) {
                int inside = i >= off + 8 && i < off + 8 + n;
                char want = inside ? from[7 - off + (i - off - 8)] : (char)GUARD;
                if (to[i] != want && bad++ < 3)
                    CHECK(0, "rt_copy(n=%zu, offset %zu): byte %zu is 0x%02x, "
                             "expected 0x%02x (%s)", n, off, i,
                          (unsigned char)to[i], (unsigned char)want,
                          inside ? "a payload byte" : "outside the payload");
            }
        }
    CHECK(bad == 0, "rt_copy moved every byte it was asked to and no other "
                    "(%d wrong bytes)", bad);
}

/* A block sent in pieces (rt_pieces_head) is covered exactly by its head's
 * share and the pieces that follow, each at most a piece, at sizes either
 * side of a whole number of pieces; and its head is no item. */
static void test_pieces_head_covers_the_block_with_its_pieces(void)
{
    const uint32_t piece = 7936;
    const size_t lens[] = {7937, 2 * 7936 - RT_HDR_SIZE, 2 * 7936 - RT_HDR_SIZE + 1,
                           32768 + RT_HDR_SIZE, 65536};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        rt_item_hdr h = rt_pieces_head(1, 0, lens[i], piece);
        uint32_t rest = rt_meta_value(h.meta);
        size_t covered = h.len + (size_t)rest * piece;
        CHECK(rt_meta_kind(h.meta) == RT_PIECES && (size_t)h.tag == lens[i] &&
                  h.len + RT_HDR_SIZE == piece,
              "a block of %zu bytes: its head says PIECES, the whole size and "
              "a head share of a piece less its header; got kind %d, size %d, "
              "share %u", lens[i], (int)rt_meta_kind(h.meta), h.tag, h.len);
        CHECK(covered >= lens[i] && covered - lens[i] < piece,
              "a block of %zu bytes: the head's %u bytes and %u pieces of at "
              "most %u must cover it with the last piece not empty; they "
              "cover %zu", lens[i], h.len, rest, piece, covered);
        char block[RT_HDR_SIZE];
        rt_hdr_write(block, &h);
        CHECK(rt_block_count_items(block, sizeof block) < 0,
              "a PIECES head is not an item: a block of it must not parse");
    }
}

/* A header written field by field reads back as written, at any offset in
 * a block (blocks are not aligned). */
static void test_header_reads_back_as_written_unaligned(void)
{
    char block[64];
    rt_item_hdr h = {.dst = 7, .src = 3, .comm = 42, .tag = -5, .len = 1000,
                     .meta = rt_meta(RT_CTS, 12345)};
    for (size_t off = 0; off < 8; off++) {
        rt_hdr_write(block + off, &h);
        rt_item_hdr r;
        rt_hdr_read(block + off, &r);
        CHECK(memcmp(&r, &h, sizeof h) == 0,
              "a header written at offset %zu reads back the same", off);
        CHECK(rt_meta_kind(r.meta) == RT_CTS && rt_meta_value(r.meta) == 12345,
              "meta keeps kind %d and value 12345 apart (read %d, %u)", RT_CTS,
              rt_meta_kind(r.meta), rt_meta_value(r.meta));
    }
}

static size_t put_item(char *at, enum rt_kind kind, uint32_t len)
{
    rt_item_hdr h = {.dst = 1, .src = 0, .comm = 0, .tag = 0, .len = len,
                     .meta = rt_meta(kind, 0)};
    rt_hdr_write(at, &h);
    memset(at + RT_HDR_SIZE, 0, len);
    return RT_HDR_SIZE + len;
}

static void test_block_of_whole_items_is_counted(void)
{
    char block[256];
    size_t n = put_item(block, RT_EAGER, 8);
    n += put_item(block + n, RT_ACK, 0);
    n += put_item(block + n, RT_EAGER, 13);
    CHECK(rt_block_count_items(block, n) == 3,
          "a block of three whole items counts 3 (got %ld)",
          rt_block_count_items(block, n));
}

static void test_block_of_every_kind_is_counted(void)
{
    char block[512];
    size_t n = 0;
    for (int k = RT_EAGER; k <= RT_KIND_LAST; k++)
        n += put_item(block + n, (enum rt_kind)k, 4);
    CHECK(rt_block_count_items(block, n) == RT_KIND_LAST,
          "a block with one item of each of the %d kinds counts %d (got %ld)",
          RT_KIND_LAST, RT_KIND_LAST, rt_block_count_items(block, n));
}

/* The statistics file's forwarded_control_items counts the kinds that
 * carry no message of the program; a new kind must be placed on purpose. */
static void test_control_kinds_are_those_that_carry_no_message(void)
{
    static const int control[RT_KIND_LAST + 1] = {
        [RT_ACK] = 1,   [RT_CREDIT] = 1,  [RT_CTS] = 1,     [RT_STALL] = 1,
        [RT_GRANT] = 1, [RT_REFUSED] = 1, [RT_RECLAIM] = 1, [RT_RELEASE] = 1,
        [RT_HOLD] = 1};
    for (int k = RT_EAGER; k <= RT_KIND_LAST; k++)
        CHECK(rt_kind_is_control((enum rt_kind)k) == control[k],
              "kind %d is %s, so rt_kind_is_control must say %d (said %d)", k,
              control[k] ? "Omnibus's own protocol" : "a message of the program",
              control[k], rt_kind_is_control((enum rt_kind)k));
}

static void test_truncated_block_is_refused(void)
{
    char block[256];
    size_t n = put_item(block, RT_EAGER, 8);
    n += put_item(block + n, RT_EAGER, 13);
    CHECK(rt_block_count_items(block, n - 1) == -1,
          "a block whose last item's body is cut short is refused (got %ld)",
          rt_block_count_items(block, n - 1));
    CHECK(rt_block_count_items(block, RT_HDR_SIZE - 1) == -1,
          "a block shorter than one header is refused (got %ld)",
          rt_block_count_items(block, RT_HDR_SIZE - 1));
}

int main(void)
{
    RUN(test_pieces_head_covers_the_block_with_its_pieces);
    RUN(test_copy_moves_exactly_n_bytes_at_every_small_size);
    RUN(test_header_reads_back_as_written_unaligned);
    RUN(test_block_of_every_kind_is_counted);
    RUN(test_block_of_whole_items_is_counted);
    RUN(test_truncated_block_is_refused);
    RUN(test_control_kinds_are_those_that_carry_no_message);
    CHECK_MAIN_END();
}
