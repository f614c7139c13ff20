//! Micro-benchmark of pure identifier generation (one `genid` + check character
//! assembly per id, no storage), for a random template with NAAN and check character
//! and for an unlimited sequential one. Results are recorded in `BENCH.md`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use noid_template::checkchar::apply_in_place;
use noid_template::generator::{init_counters, CompiledMask};
use noid_template::template::parse_template;
use std::hint::black_box;

/// Mints `BATCH` ids per iteration so the per-id figure is not dominated by timer
/// overhead; the state is reset when a bounded minter runs out.
const BATCH: u64 = 10_000;

fn bench_template(c: &mut Criterion, name: &str, template: &str, naan: &str) {
    let t = parse_template(template).unwrap();
    let mask = CompiledMask::new(&t.mask).unwrap();
    let firstpart = if naan.is_empty() {
        t.prefix.clone()
    } else {
        format!("{naan}/{}", t.prefix)
    };
    let fresh = init_counters(t.total);
    let mut state = fresh.clone();
    let mut id = String::with_capacity(32);

    let mut group = c.benchmark_group("generate");
    group.throughput(Throughput::Elements(BATCH));
    group.bench_function(name, |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                id.clear();
                id.push_str(&firstpart);
                if state.genid_into(&mask, t.gen_type, false, &mut id).is_err() {
                    state = fresh.clone();
                    continue;
                }
                if t.has_checkchar {
                    apply_in_place(&mut id);
                }
                black_box(&id);
            }
        })
    });
    group.finish();
}

fn generate(c: &mut Criterion) {
    bench_template(c, "f5.reedeedk+13030", "f5.reedeedk", "13030");
    bench_template(c, ".zd", ".zd", "");
}

criterion_group!(benches, generate);
criterion_main!(benches);
