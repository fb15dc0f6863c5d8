B/ReduceMean_2_output_0JQ„½
}…>¥M¾‰›«<ì@“>¾£>