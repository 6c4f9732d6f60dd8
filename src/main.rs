fn main() {
    std::process::exit(orla::commands::main());
}
