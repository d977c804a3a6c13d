from torchpaddle.distributed.launch.main import main

if __name__ == "__main__":
    main()
