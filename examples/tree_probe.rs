use gedcom_elf::{Event, Reader, Tree};
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let mut r = Reader::from_slice(&bytes);
        let mut n = 0u64;
        while let Some(e) = r.next_event().unwrap() {
            if let Event::Begin(b) = e {
                n += b.line & 1;
            }
        }
        let it = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let tree = Tree::from_slice(&bytes).unwrap();
        let bt = t.elapsed().as_secs_f64();
        println!(
            "iterate {it:.3}s build {bt:.3}s ratio {:.2} nodes {} mem {:.2}x {n}",
            it / bt,
            tree.len(),
            tree.memory_bytes() as f64 / bytes.len() as f64
        );
        let t = Instant::now();
        drop(tree);
        println!("drop {:.3}", t.elapsed().as_secs_f64());
    }
}
